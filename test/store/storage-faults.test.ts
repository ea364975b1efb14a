import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import type { TermStore } from '../../src/glossary/term-store.ts';
import { buildApp } from '../../src/http/app.ts';
import { openSqlite } from '../../src/store/sqlite/driver.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { sampleTerm, TEST_CONFIG } from '../helpers/app.ts';
import { backends, tempDir } from '../helpers/backends.ts';
import { eventually } from '../helpers/eventually.ts';
import { enforceOpenApi } from '../helpers/openapi-check.ts';
import { startServer } from '../helpers/server-process.ts';
import { mountSmallDisk, setImmutable } from '../helpers/storage-faults.ts';

const longTerm = (id: number) => sampleTerm(id, { definition: `${'d'.repeat(2000)} ${id}` });
const ids = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i);

/**
 * Once no write has come for a second, the store checkpoints its WAL, and the next write then
 * reuses the WAL file's space from its start: on a full disk, a write that fits in that space
 * succeeds. These tests fill the disk to see writes refused, so nothing checkpoints meanwhile.
 */
async function appOn(file: string) {
  return appWith(openSqliteStore(file, { indexUpkeep: { idleMs: 3_600_000 } }));
}

async function appWith(store: TermStore) {
  const app = await buildApp({ config: TEST_CONFIG, store, logger: false });
  await enforceOpenApi(app);
  return {
    app,
    async close() {
      await app.close();
      await store.close();
    },
  };
}

async function storedIds(app: FastifyInstance): Promise<number[]> {
  const listed = await app.inject({ method: 'GET', url: '/terms' });
  assert.equal(listed.statusCode, 200);
  return (listed.json() as { id: number }[]).map((term) => term.id);
}

function assertUnavailable(response: { statusCode: number; headers: Record<string, unknown> }) {
  assert.equal(response.statusCode, 503);
  assert.match(String(response.headers['retry-after']), /^\d+$/);
}

/**
 * While the store cannot write: PUT, PATCH, DELETE and restore of `term` answer 503 and leave
 * it, and its history, as they were.
 */
async function assertEditsRefused(app: FastifyInstance, term: { id: number }): Promise<void> {
  const url = `/terms/${term.id}`;
  const history = (await app.inject(`${url}/history`)).json() as { revision: number }[];
  assertUnavailable(
    await app.inject({ method: 'PUT', url, payload: { ...term, definition: 'Changed.' } }),
  );
  assertUnavailable(
    await app.inject({ method: 'PATCH', url, payload: { definition: 'Changed.' } }),
  );
  assertUnavailable(await app.inject({ method: 'DELETE', url }));
  assertUnavailable(
    await app.inject({
      method: 'POST',
      url: `${url}/restore`,
      payload: { revision: history[0]?.revision },
    }),
  );
  assert.deepEqual((await app.inject(url)).json(), term);
  assert.deepEqual((await app.inject(`${url}/history`)).json(), history);
}

/** While the store cannot write: every write path and readiness answer 503, reads still work. */
async function assertWritesRefused(app: FastifyInstance): Promise<void> {
  assertUnavailable(await app.inject({ method: 'POST', url: '/terms', payload: sampleTerm(2) }));
  assertUnavailable(
    await app.inject({
      method: 'POST',
      url: '/terms/bulk',
      payload: [sampleTerm(3), sampleTerm(4)],
    }),
  );
  assertUnavailable(await app.inject({ method: 'GET', url: '/readyz' }));
  await assertEditsRefused(app, sampleTerm(1));
  assert.deepEqual(await storedIds(app), [1]);
}

/** Once the fault has cleared, the refused bulk import goes through and is stored after id 1. */
async function assertWritesResume(app: FastifyInstance): Promise<void> {
  const retried = await app.inject({
    method: 'POST',
    url: '/terms/bulk',
    payload: [sampleTerm(3), sampleTerm(4)],
  });
  assert.deepEqual(
    (retried.json() as { status: string }[]).map((r) => r.status),
    ['created', 'created'],
  );
  assert.deepEqual(await storedIds(app), [1, 3, 4]);
  const edited = await app.inject({ method: 'PATCH', url: '/terms/1', payload: { term: 'One' } });
  assert.equal(edited.statusCode, 200);
}

function assertIntact(file: string): void {
  const db = openSqlite(file, { readonly: true });
  try {
    assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
  } finally {
    db.close();
  }
}

describe('storage faults (sqlite)', () => {
  test('a full disk answers writes 503 with Retry-After, keeps reads, and recovers when space is freed', async (t) => {
    const disk = mountSmallDisk(t, 4 * 1024 * 1024);
    if (!disk) return;
    const file = path.join(disk.dir, 'glossary.db');
    const service = await appOn(file);
    try {
      const { app } = service;
      const first = await app.inject({
        method: 'POST',
        url: '/terms/bulk',
        payload: ids(1, 20).map(longTerm),
      });
      assert.equal(first.statusCode, 207);

      disk.fill();
      const single = await app.inject({ method: 'POST', url: '/terms', payload: longTerm(100) });
      assertUnavailable(single);
      assert.equal(typeof single.json().detail, 'string');
      const bulk = await app.inject({
        method: 'POST',
        url: '/terms/bulk',
        payload: ids(200, 50).map(longTerm),
      });
      assertUnavailable(bulk);
      assertUnavailable(await app.inject({ method: 'GET', url: '/readyz' }));

      // Reads keep working, and show exactly what was acknowledged: nothing of the refused writes.
      assert.deepEqual(await storedIds(app), ids(1, 20));
      const one = await app.inject({ method: 'GET', url: '/terms/7' });
      assert.deepEqual(one.json(), longTerm(7));
      assert.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
      await assertEditsRefused(app, longTerm(7));

      disk.free();
      const ready = await app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(ready.statusCode, 200);
      const again = await app.inject({
        method: 'POST',
        url: '/terms/bulk',
        payload: ids(200, 50).map(longTerm),
      });
      assert.equal(again.statusCode, 207);
      assert.ok((again.json() as { status: string }[]).every((r) => r.status === 'created'));
      const retried = await app.inject({ method: 'POST', url: '/terms', payload: longTerm(100) });
      assert.equal(retried.statusCode, 201);
      assert.deepEqual(await storedIds(app), [...ids(1, 20), ...ids(200, 50), 100]);
      const deleted = await app.inject({ method: 'DELETE', url: '/terms/7' });
      assert.equal(deleted.statusCode, 204);
    } finally {
      await service.close();
      assertIntact(file);
    }
  });

  test('a read-only database file answers writes 503, keeps reads, and recovers when writable again', async (t) => {
    const file = path.join(tempDir(), 'glossary.db');
    const service = await appOn(file);
    const files = [file, `${file}-wal`];
    let immutable = false;
    try {
      const { app } = service;
      const created = await app.inject({ method: 'POST', url: '/terms', payload: sampleTerm(1) });
      assert.equal(created.statusCode, 201);

      immutable = setImmutable(t, files, true);
      if (!immutable) return;
      await assertWritesRefused(app);

      immutable = !setImmutable(t, files, false);
      assert.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
      await assertWritesResume(app);
    } finally {
      if (immutable) setImmutable(t, files, false);
      await service.close();
      assertIntact(file);
    }
  });

  test('the real server process survives a full disk and recovers without a restart', async (t) => {
    const disk = mountSmallDisk(t, 4 * 1024 * 1024);
    if (!disk) return;
    const file = path.join(disk.dir, 'glossary.db');
    const server = await startServer({ DATABASE_URL: `sqlite:${file}` });
    const post = (url: string, body: unknown) =>
      fetch(server.url + url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    // A read transaction held open from before the first write keeps the service's WAL from
    // being checkpointed and its space reused (see `appOn`), however slowly the test runs.
    const reader = openSqlite(file, { readonly: true });
    reader.exec('BEGIN');
    reader.prepare('SELECT count(*) FROM terms').get();
    try {
      assert.equal((await post('/terms/bulk', ids(1, 10).map(longTerm))).status, 207);
      disk.fill();
      const refused = await post('/terms/bulk', ids(100, 50).map(longTerm));
      assert.equal(refused.status, 503);
      assert.match(refused.headers.get('retry-after') ?? '', /^\d+$/);
      assert.equal((await fetch(`${server.url}/readyz`)).status, 503);
      const listed = await fetch(`${server.url}/terms`);
      assert.equal(((await listed.json()) as unknown[]).length, 10);
      disk.free();
      assert.equal((await fetch(`${server.url}/readyz`)).status, 200);
      assert.equal((await post('/terms', longTerm(100))).status, 201);
      assert.equal(server.child.exitCode, null, 'the process is still running');
    } finally {
      reader.close();
      const exit = await server.stop();
      assert.equal(exit.code, 0, server.stderr());
      assertIntact(file);
    }
  });
});

/** Runs statements on the PostgreSQL server of TEST_DATABASE_URL as its administrator. */
async function admin(...statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  client.on('error', () => undefined);
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

const terminate = (database: string) =>
  `SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity WHERE datname = '${database}' AND pid <> pg_backend_pid()`;

/**
 * The answer once the service has noticed a change the test made to the database: connections
 * terminated by the test are discarded by the pool as they are found, so the first requests
 * after a change may still meet one.
 */
async function answered(
  send: () => Promise<{ statusCode: number }>,
  status: number,
): Promise<{ statusCode: number }> {
  let response = await send();
  await eventually(
    async () => {
      if (response.statusCode === status) return true;
      response = await send();
      return response.statusCode === status;
    },
    () => `the answer ${status} (last: ${response.statusCode})`,
  );
  return response;
}

const postgres = backends().find((backend) => backend.name === 'postgres');
if (postgres) {
  describe('storage faults (postgres)', () => {
    test('a read-only database (as after a failover to a standby) answers writes 503, keeps reads, and recovers', async () => {
      const location = await postgres.location();
      const database = new URL(location.url).pathname.slice(1);
      const service = await appWith(await location.open());
      try {
        const { app } = service;
        const created = await app.inject({ method: 'POST', url: '/terms', payload: sampleTerm(1) });
        assert.equal(created.statusCode, 201);

        await admin(
          `ALTER DATABASE ${database} SET default_transaction_read_only = on`,
          terminate(database),
        );
        await answered(() => app.inject({ method: 'GET', url: '/terms/1' }), 200);
        await assertWritesRefused(app);

        await admin(
          `ALTER DATABASE ${database} RESET default_transaction_read_only`,
          terminate(database),
        );
        await answered(() => app.inject({ method: 'GET', url: '/readyz' }), 200);
        await assertWritesResume(app);
      } finally {
        await admin(`ALTER DATABASE ${database} RESET default_transaction_read_only`);
        await service.close();
        await location.dispose();
      }
    });

    test('a database that refuses connections answers 503 with Retry-After, and recovers when it accepts them', async () => {
      const location = await postgres.location();
      const database = new URL(location.url).pathname.slice(1);
      const service = await appWith(await location.open());
      try {
        const { app } = service;
        const first = await app.inject({
          method: 'POST',
          url: '/terms/bulk',
          payload: [sampleTerm(1)],
        });
        assert.equal(first.statusCode, 207);

        await admin(`ALTER DATABASE ${database} ALLOW_CONNECTIONS false`, terminate(database));
        assertUnavailable(
          await app.inject({ method: 'POST', url: '/terms', payload: sampleTerm(2) }),
        );
        assertUnavailable(
          await app.inject({ method: 'POST', url: '/terms/bulk', payload: [sampleTerm(3)] }),
        );
        assertUnavailable(await app.inject({ method: 'GET', url: '/terms' }));
        assertUnavailable(await app.inject({ method: 'GET', url: '/readyz' }));

        await admin(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`);
        await answered(() => app.inject({ method: 'GET', url: '/readyz' }), 200);
        const retried = await app.inject({
          method: 'POST',
          url: '/terms/bulk',
          payload: [sampleTerm(3)],
        });
        assert.equal(retried.json()[0].status, 'created');
        assert.deepEqual(await storedIds(app), [1, 3]);
      } finally {
        await admin(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`);
        await service.close();
        await location.dispose();
      }
    });

    test('a full disk under the database answers writes 503, keeps reads, and recovers when space is freed', async (t) => {
      // The database's tablespace on a small tmpfs owned by the PostgreSQL server's user; the
      // server's own WAL stays where it is, as when a data volume fills up.
      const disk = mountSmallDisk(t, 24 * 1024 * 1024, 'postgres');
      if (!disk) return;
      const location = await postgres.location();
      const database = new URL(location.url).pathname.slice(1);
      const tablespace = `${database}_space`;
      await admin(
        `CREATE TABLESPACE ${tablespace} LOCATION '${disk.dir}'`,
        `ALTER DATABASE ${database} SET TABLESPACE ${tablespace}`,
      );
      const service = await appWith(await location.open());
      try {
        const { app } = service;
        const first = await app.inject({
          method: 'POST',
          url: '/terms/bulk',
          payload: ids(1, 20).map(longTerm),
        });
        assert.equal(first.statusCode, 207);

        disk.fill();
        // Pages already allocated may take a few more rows; a batch needing new pages cannot.
        const acknowledged = ids(1, 20);
        let refused: number[] | undefined;
        for (let batch = 0; batch < 50 && !refused; batch++) {
          const batchIds = ids(1000 + batch * 100, 100);
          const response = await app.inject({
            method: 'POST',
            url: '/terms/bulk',
            payload: batchIds.map(longTerm),
          });
          if (response.statusCode === 503) {
            assertUnavailable(response);
            refused = batchIds;
          } else {
            assert.equal(response.statusCode, 207);
            acknowledged.push(...batchIds);
          }
        }
        assert.ok(refused, 'a full disk refused a batch');
        assert.deepEqual(await storedIds(app), acknowledged);
        assert.equal((await app.inject({ method: 'GET', url: '/terms/7' })).statusCode, 200);

        disk.free();
        await answered(() => app.inject({ method: 'GET', url: '/readyz' }), 200);
        const again = await app.inject({
          method: 'POST',
          url: '/terms/bulk',
          payload: refused.map(longTerm),
        });
        assert.ok((again.json() as { status: string }[]).every((r) => r.status === 'created'));
        assert.deepEqual(await storedIds(app), [...acknowledged, ...refused]);
      } finally {
        await service.close();
        await location.dispose();
        await admin(`DROP TABLESPACE IF EXISTS ${tablespace}`);
      }
    });
  });
}
