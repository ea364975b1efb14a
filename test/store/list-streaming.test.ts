import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { TermStore } from '../../src/glossary/term-store.ts';
import { buildApp } from '../../src/http/app.ts';
import { TEST_CONFIG } from '../helpers/app.ts';
import { backends } from '../helpers/backends.ts';

const TERMS = 8000;
const CHUNK = 500; // the SQLite store's chunk size; any backend reads lazily in some chunks

for (const backend of backends()) {
  describe(`GET /terms streams with back-pressure (${backend.name})`, () => {
    let store: TermStore;
    let app: FastifyInstance;
    let port: number;
    let pulled = 0;
    before(async () => {
      store = await backend.open();
      const definition = 'x'.repeat(5000);
      for (let first = 0; first < TERMS; first += 1000) {
        await store.importMany(
          Array.from({ length: 1000 }, (_, i) => ({
            id: first + i,
            term: `Term ${first + i}`,
            definition,
            category: 'backend' as const,
            see_also: [],
          })),
        );
      }
      // The real store, counting the chunks the route pulls from it.
      const counting: TermStore = {
        ...store,
        list(filter, options) {
          const chunks = store.list(filter, options);
          return (async function* () {
            for await (const chunk of chunks) {
              pulled += 1;
              yield chunk;
            }
          })();
        },
      };
      app = await buildApp({ config: TEST_CONFIG, store: counting, logger: false });
      await app.listen({ port: 0, host: '127.0.0.1' });
      port = (app.server.address() as AddressInfo).port;
    });
    after(async () => {
      await app.close();
      await store.close();
    });

    test('a client that stops reading stops the reading of the store; the list completes once it reads on', async () => {
      const { res } = await new Promise<{ res: http.IncomingMessage }>((resolve, reject) => {
        http.get(`http://127.0.0.1:${port}/terms`, (res) => resolve({ res })).on('error', reject);
      });
      res.pause();
      // Let the server fill every buffer between it and the paused client.
      let seen = -1;
      for (let quiet = 0; quiet < 5; ) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        quiet = pulled === seen ? quiet + 1 : 0;
        seen = pulled;
      }
      const total = Math.ceil(TERMS / CHUNK);
      assert.ok(pulled <= total / 2, `pulled ${pulled} of ${total} chunks for a paused client`);

      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => parts.push(part));
      res.resume();
      await new Promise((resolve) => res.on('end', resolve));
      const terms = JSON.parse(Buffer.concat(parts).toString('utf8')) as { id: number }[];
      assert.equal(terms.length, TERMS);
      assert.deepEqual(
        terms.map((term) => term.id),
        Array.from({ length: TERMS }, (_, i) => i),
      );
    });
  });
}
