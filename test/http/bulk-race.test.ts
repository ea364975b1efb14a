import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { TermStore } from '../../src/glossary/term-store.ts';
import { buildApp } from '../../src/http/app.ts';
import { sampleTerm, TEST_CONFIG } from '../helpers/app.ts';
import { backends, type Location } from '../helpers/backends.ts';
import { checkRaceOutcome, raceBatches } from '../helpers/bulk-race.ts';

for (const backend of backends()) {
  describe(`concurrent bulk imports through two instances on one storage (${backend.name})`, () => {
    let location: Location;
    const stores: TermStore[] = [];
    let apps: [FastifyInstance, FastifyInstance];
    before(async () => {
      location = await backend.location();
      const instance = async () => {
        const store = await location.open();
        stores.push(store);
        const app = await buildApp({ config: TEST_CONFIG, store, logger: false });
        await app.ready();
        return app;
      };
      apps = [await instance(), await instance()];
    });
    after(async () => {
      for (const app of apps ?? []) await app.close();
      for (const store of stores) await store.close();
      await location?.dispose();
    });

    test('POST /terms/bulk creates each id exactly once however many requests race, POST /terms alongside', async () => {
      // A term posted singly beforehand is "already stored" for every batch that carries it.
      const postedFirst = await apps[0].inject({
        method: 'POST',
        url: '/terms',
        payload: sampleTerm(0),
      });
      assert.equal(postedFirst.statusCode, 201);

      const batches = raceBatches({ requests: 24, size: 60, ids: 300 });
      // POST /terms of some of the same ids at the same time: never checked, always 201.
      const posted = Array.from({ length: 40 }, (_, i) => (i * 11) % 300);
      const [responses, singles] = await Promise.all([
        Promise.all(
          batches.map((batch, i) =>
            apps[i % 2 === 0 ? 0 : 1].inject({
              method: 'POST',
              url: '/terms/bulk',
              payload: batch,
            }),
          ),
        ),
        Promise.all(
          posted.map((id, i) =>
            apps[i % 2 === 0 ? 1 : 0].inject({
              method: 'POST',
              url: '/terms',
              payload: sampleTerm(id, { term: `Posted ${id}` }),
            }),
          ),
        ),
      ]);
      for (const single of singles) assert.equal(single.statusCode, 201);
      for (const response of responses) assert.equal(response.statusCode, 207);

      const listed = await apps[1].inject({ method: 'GET', url: '/terms' });
      checkRaceOutcome({
        batches,
        results: responses.map((response) => response.json()),
        listedIds: (listed.json() as { id: number }[]).map((term) => term.id),
        preexisting: [0],
        posted,
      });
    });
  });
}
