import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { TermStore } from '../../src/glossary/term-store.ts';
import { buildApp } from '../../src/http/app.ts';
import { openingStore } from '../../src/store/opening-store.ts';
import { sampleTerm, TEST_CONFIG } from '../helpers/app.ts';
import { backends } from '../helpers/backends.ts';
import { enforceOpenApi } from '../helpers/openapi-check.ts';

/**
 * The service listens while its store opens (a large SQLite file's integrity check takes
 * seconds): liveness answers at once, readiness says 503 until the store is open, and every
 * other request waits for the store and then gets its usual answer. Here the opening is held
 * back by the test, then let go.
 */

function heldOpening(open: () => Promise<TermStore>) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { opening: gate.then(open), release };
}

const settledWithin = async <T>(promise: Promise<T>, turns = 20) => {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  for (let i = 0; i < turns; i += 1) await new Promise((resolve) => setImmediate(resolve));
  return settled;
};

for (const backend of backends()) {
  describe(`a store still opening (${backend.name})`, () => {
    test('liveness answers, readiness is 503, reads and writes wait and then answer', async () => {
      const held = heldOpening(() => backend.open());
      const store = openingStore(backend.name, held.opening);
      const app = await buildApp({ config: TEST_CONFIG, store, logger: false });
      await app.ready();
      await enforceOpenApi(app);
      try {
        assert.equal((await app.inject({ url: '/healthz' })).statusCode, 200);
        const notReady = await app.inject({ url: '/readyz' });
        assert.equal(notReady.statusCode, 503);
        assert.ok(typeof notReady.json().detail === 'string');

        const created = app.inject({ method: 'POST', url: '/terms', payload: sampleTerm(1) });
        const read = app.inject({ url: '/terms/1' });
        const listed = app.inject({ url: '/terms' });
        const searchedEarly = app.inject({ url: '/terms?q=Term&limit=1' });
        assert.equal(await settledWithin(created), false, 'a write waits for the store');
        assert.equal(await settledWithin(listed), false, 'a list waits for the store');

        held.release();
        await store.opened;
        assert.equal((await created).statusCode, 201);
        // Asked before the write was answered: either answer is one a client could get.
        assert.ok([200, 404].includes((await read).statusCode));
        assert.equal((await listed).statusCode, 200);
        assert.equal((await app.inject({ url: '/readyz' })).statusCode, 200);
        assert.deepEqual((await app.inject({ url: '/terms/1' })).json(), sampleTerm(1));
        // A ranking asked before and after: the store's own shortcuts, where it has them, are
        // taken only once it is open.
        assert.equal((await searchedEarly).statusCode, 200);
        await store.create(sampleTerm(2, { term: 'Term two' }) as never);
        const searched = await app.inject({ url: '/terms?q=term&limit=1' });
        assert.equal(searched.statusCode, 200);
        assert.equal(searched.json().length, 1);
      } finally {
        await app.close();
        await store.close();
      }
    });

    test('a follower of changes who came before the store opened hears the first write', async () => {
      const held = heldOpening(() => backend.open());
      const store = openingStore(backend.name, held.opening);
      try {
        let heard = 0;
        const stop = store.watchChanges(() => {
          heard += 1;
        });
        held.release();
        const open = await store.opened;
        await store.create(sampleTerm(7) as never);
        for (let i = 0; i < 200 && heard === 0; i += 1) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        stop();
        assert.ok(heard > 0, 'the listener was told of the write');
        assert.deepEqual(await open.get(7), sampleTerm(7));
      } finally {
        await store.close();
      }
    });
  });
}

test('a store that fails to open fails what waited for it, and readiness stays 503', async () => {
  let fail!: (error: Error) => void;
  const opening = new Promise<TermStore>((_, reject) => {
    fail = reject;
  });
  const store = openingStore('sqlite', opening);
  const app = await buildApp({ config: TEST_CONFIG, store, logger: false });
  await app.ready();
  try {
    const read = app.inject({ url: '/terms/1' });
    fail(new Error('the file is corrupt'));
    await assert.rejects(store.opened, /corrupt/);
    assert.ok((await read).statusCode >= 500);
    assert.equal((await app.inject({ url: '/readyz' })).statusCode, 503);
    assert.equal((await app.inject({ url: '/healthz' })).statusCode, 200);
  } finally {
    await app.close();
    await store.close();
  }
});
