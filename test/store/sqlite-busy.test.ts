import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type Database from 'better-sqlite3';
import type { FastifyInstance } from 'fastify';
import type { TermStore } from '../../src/glossary/term-store.ts';
import { buildApp } from '../../src/http/app.ts';
import { openSqlite } from '../../src/store/sqlite/driver.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { sampleTerm, TEST_CONFIG } from '../helpers/app.ts';
import { tempDir } from '../helpers/backends.ts';

/**
 * Another process (here another connection) holds the write lock longer than the busy timeout:
 * writes answer 503 with Retry-After instead of 500, reads go on (WAL), and writes work again
 * once the lock is released.
 */
describe('SQLite write lock held elsewhere past the busy timeout', () => {
  const file = path.join(tempDir(), 'glossary.db');
  let store: TermStore;
  let app: FastifyInstance;
  let other: Database.Database;
  before(async () => {
    store = openSqliteStore(file, { busyTimeoutMs: 50 });
    app = await buildApp({ config: TEST_CONFIG, store, logger: false });
    const res = await app.inject({ method: 'POST', url: '/terms', payload: sampleTerm(1) });
    assert.equal(res.statusCode, 201);
    other = openSqlite(file);
    other.exec('BEGIN IMMEDIATE');
  });
  after(async () => {
    if (other.inTransaction) other.exec('ROLLBACK');
    other.close();
    await app.close();
    await store.close();
  });

  test('POST /terms and POST /terms/bulk answer 503 with Retry-After', async () => {
    for (const [url, payload] of [
      ['/terms', sampleTerm(2)],
      ['/terms/bulk', [sampleTerm(3)]],
    ] as const) {
      const res = await app.inject({ method: 'POST', url, payload });
      assert.equal(res.statusCode, 503, url);
      assert.equal(res.headers['retry-after'], '5');
      assert.deepEqual(res.json(), {
        detail: 'The glossary storage is unavailable; try again later.',
      });
    }
  });

  test('reads still answer while the lock is held', async () => {
    assert.equal((await app.inject('/terms/1')).statusCode, 200);
    assert.equal((await app.inject('/terms?search=term&limit=5')).statusCode, 200);
  });

  test('once the lock is released, writes succeed and nothing refused was stored', async () => {
    other.exec('ROLLBACK');
    const res = await app.inject({ method: 'POST', url: '/terms', payload: sampleTerm(4) });
    assert.equal(res.statusCode, 201);
    const ids = (await app.inject('/terms')).json().map((term: { id: number }) => term.id);
    assert.deepEqual(ids, [1, 4]);
  });
});
