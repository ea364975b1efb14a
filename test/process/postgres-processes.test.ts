import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  admin,
  type Backend,
  backends,
  type Location,
  migratedPostgres,
} from '../helpers/backends.ts';
import { checkRaceOutcome, raceBatches } from '../helpers/bulk-race.ts';
import { eventually } from '../helpers/eventually.ts';
import {
  killLeftovers,
  runServer,
  type ServerProcess,
  startServer,
} from '../helpers/server-process.ts';

/** Real server processes on a real PostgreSQL database (skipped with the postgres backend). */

const postgres = backends().find((backend) => backend.name === 'postgres');

async function json(response: Response): Promise<unknown> {
  assert.match(response.headers.get('content-type') ?? '', /application\/json/);
  return response.json();
}

/** Runs the server where it must not start; a server that starts anyway is stopped. */
async function runToExit(
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string }> {
  const server = runServer(env);
  server
    .waitForLog((line) => String(line.msg).startsWith('Server listening at '))
    .then(
      () => server.child.kill('SIGTERM'),
      () => undefined,
    );
  const exit = await server.exited;
  return { code: exit.code, stderr: server.stderr() };
}

function withDatabase(url: string, database: string): string {
  const changed = new URL(url);
  changed.pathname = `/${database}`;
  return changed.toString();
}

if (postgres) {
  const backend = postgres as Backend;

  describe('two server processes on one PostgreSQL database', () => {
    let location: Location;
    const servers: ServerProcess[] = [];
    before(async () => {
      location = await backend.location();
      // Started together: both run the migrations at once, under the migration lock.
      servers.push(
        ...(await Promise.all([
          startServer({ DATABASE_URL: location.url }),
          startServer({ DATABASE_URL: location.url }),
        ])),
      );
    });
    after(async () => {
      for (const server of servers) await server.stop();
      await killLeftovers();
      await location?.dispose();
    });

    test('concurrent bulk requests through both processes create each id exactly once', async () => {
      const batches = raceBatches({ requests: 30, size: 50, ids: 250 });
      const results = await Promise.all(
        batches.map(async (batch, i) => {
          const response = await fetch(`${servers[i % 2]?.url}/terms/bulk`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(batch),
          });
          assert.equal(response.status, 207);
          return json(response);
        }),
      );
      const listed = (await json(await fetch(`${servers[0]?.url}/terms`))) as { id: number }[];
      checkRaceOutcome({ batches, results, listedIds: listed.map((t) => t.id), preexisting: [] });
      const other = await json(await fetch(`${servers[1]?.url}/terms`));
      assert.deepEqual(other, listed, 'both processes list the same terms in the same order');
    });
  });

  describe('a stop asked for while the server starts', () => {
    after(killLeftovers);

    test('between an open store and ready, SIGTERM stops it (exit 0, "stopped"), not a failed start', async () => {
      const { location, client, dispose } = await migratedPostgres(backend);
      try {
        // The start reads the typo vocabulary after the store opened (/readyz 200) and
        // before `ready`: held here, so that the stop comes in between.
        await client.query('BEGIN');
        await client.query('LOCK TABLE vocabulary IN ACCESS EXCLUSIVE MODE');
        const server = runServer({ DATABASE_URL: location.url });
        const listening = await server.waitForLog((line) =>
          String(line.msg).startsWith('Server listening at '),
        );
        const url = String(listening.msg).slice('Server listening at '.length);
        await eventually(
          async () => (await fetch(`${url}/readyz`)).status === 200,
          'the store open',
        );
        server.child.kill('SIGTERM');
        await server.waitForLog((line) => line.msg === 'shutting down');
        // The vocabulary's reader goes on once the lock is let go, into a closed pool.
        await client.query('ROLLBACK');
        assert.deepEqual(await server.exited, { code: 0, signal: null });
        assert.equal(server.stderr(), '');
        const said = server.logs.map((line) => line.msg);
        assert.ok(said.includes('stopped'), said.join(' | '));
        assert.ok(!said.includes('ready'), 'it never said ready');
      } finally {
        await dispose();
      }
    });
  });

  describe('a server process with a one-connection pool', () => {
    let location: Location;
    let server: ServerProcess;
    before(async () => {
      location = await backend.location();
      server = await startServer({ DATABASE_URL: location.url, PG_POOL_SIZE: '1' });
    });
    after(async () => {
      await server?.stop();
      await killLeftovers();
      await location?.dispose();
    });

    test('clients that leave in the middle of a long list give its connection back', async () => {
      // About 10 MB of terms: far more than socket buffers hold, so the list is mid-stream
      // (waiting for the client) when the client goes away.
      const definition = 'd'.repeat(5000);
      for (let batch = 0; batch < 2; batch += 1) {
        const terms = Array.from({ length: 1000 }, (_, i) => ({
          id: batch * 1000 + i,
          term: `Term ${batch * 1000 + i}`,
          definition,
          category: 'backend',
        }));
        const response = await fetch(`${server.url}/terms/bulk`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(terms),
        });
        assert.equal(response.status, 207);
      }
      for (let round = 0; round < 3; round += 1) {
        const controller = new AbortController();
        const response = await fetch(`${server.url}/terms`, { signal: controller.signal });
        assert.equal(response.status, 200);
        const reader = (response.body as ReadableStream<Uint8Array>).getReader();
        const first = await reader.read();
        assert.equal(first.done, false);
        controller.abort();
        await reader.closed.catch(() => undefined);
      }
      // With the only connection leaked, this would wait for it and answer 503.
      const fetched = await fetch(`${server.url}/terms/1999`);
      assert.equal(fetched.status, 200);
      const listed = (await json(await fetch(`${server.url}/terms`))) as unknown[];
      assert.equal(listed.length, 2000);
    });
  });

  describe('PostgreSQL availability of a server process', () => {
    let serverUrl: string;
    let location: Location;
    let server: ServerProcess | undefined;
    let database: string;
    before(async () => {
      location = await backend.location();
      serverUrl = process.env.TEST_DATABASE_URL as string;
      database = new URL(location.url).pathname.slice(1);
    });
    after(async () => {
      await server?.stop();
      await killLeftovers();
      await admin(serverUrl, `ALTER DATABASE ${database} ALLOW_CONNECTIONS true`);
      await location?.dispose();
    });

    test('the server refuses to start, in one line, when no PostgreSQL listens', async () => {
      const url = 'postgres://postgres:secret-pw@127.0.0.1:1/glossary';
      const exit = await runToExit({ DATABASE_URL: url });
      assert.notEqual(exit.code, 0);
      assert.match(
        exit.stderr,
        /^glossary: cannot start: cannot connect to PostgreSQL at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/glossary: .*ECONNREFUSED.*\n$/,
      );
      assert.doesNotMatch(exit.stderr, /secret-pw/);
    });

    test('the server refuses to start when the credentials are not accepted', async () => {
      const url = withDatabase(serverUrl, 'postgres').replace(
        /\/\/[^@/]*@|\/\//,
        '//no_such_role:wrong@',
      );
      const exit = await runToExit({ DATABASE_URL: url });
      assert.notEqual(exit.code, 0);
      assert.match(
        exit.stderr,
        /^glossary: cannot start: cannot connect to PostgreSQL at .*no_such_role.*: .*no_such_role.*\n$/,
      );
    });

    test('the server refuses to start on a database that does not exist', async () => {
      const exit = await runToExit({
        DATABASE_URL: withDatabase(serverUrl, 'glossary_no_such_database'),
      });
      assert.notEqual(exit.code, 0);
      assert.match(exit.stderr, /database "glossary_no_such_database" does not exist\n$/);
    });

    test('/readyz answers 503 while the database is unavailable and recovers by itself', async () => {
      server = await startServer({ DATABASE_URL: location.url });
      const created = await fetch(`${server.url}/terms`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id: 1, term: 'Pool', definition: 'Kept.', category: 'backend' }),
      });
      assert.equal(created.status, 201);
      assert.equal((await fetch(`${server.url}/readyz`)).status, 200);

      await admin(serverUrl, `ALTER DATABASE ${database} ALLOW_CONNECTIONS false`);
      await admin(
        serverUrl,
        `SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity WHERE datname = '${database}'`,
      );
      const down = await fetch(`${server.url}/readyz`);
      assert.equal(down.status, 503);
      assert.ok(down.headers.get('retry-after'));
      const listDown = await fetch(`${server.url}/terms`);
      assert.equal(listDown.status, 503);
      assert.deepEqual(await listDown.json(), {
        detail: 'The glossary storage is unavailable; try again later.',
      });
      const getDown = await fetch(`${server.url}/terms/1`);
      assert.equal(getDown.status, 503);

      await admin(serverUrl, `ALTER DATABASE ${database} ALLOW_CONNECTIONS true`);
      assert.equal((await fetch(`${server.url}/readyz`)).status, 200);
      const fetched = await fetch(`${server.url}/terms/1`);
      assert.equal(fetched.status, 200);
      assert.equal(((await fetched.json()) as { term: string }).term, 'Pool');
      assert.equal(server.child.exitCode, null, 'the same process served throughout');
    });
  });
}
