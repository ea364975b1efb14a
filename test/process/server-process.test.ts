import assert from 'node:assert/strict';
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { openSqlite } from '../../src/store/sqlite/driver.ts';
import { sampleTerm } from '../helpers/app.ts';
import { tempDir } from '../helpers/backends.ts';
import { killLeftovers, runServer, startServer } from '../helpers/server-process.ts';

type Term = ReturnType<typeof sampleTerm>;

const TIMEOUT = { timeout: 60_000 };

async function send(url: string, method: string, body?: unknown) {
  const response = await fetch(url, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? null : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as unknown };
}

const listTerms = async (base: string) => (await send(`${base}/terms`, 'GET')).body as Term[];

describe('the server process', () => {
  after(killLeftovers);

  test('keeps single and bulk writes across a SIGTERM restart, exiting 0', TIMEOUT, async () => {
    const databaseUrl = `sqlite:${path.join(tempDir(), 'glossary.db')}`;
    const first = await startServer({ DATABASE_URL: databaseUrl });
    const written = [sampleTerm(3), sampleTerm(1, { see_also: [3] }), sampleTerm(2)];
    for (const term of written) {
      assert.equal((await send(`${first.url}/terms`, 'POST', term)).status, 201);
    }
    const batch = [sampleTerm(10), sampleTerm(3), sampleTerm(-5, { category: 'devops' })];
    const bulk = await send(`${first.url}/terms/bulk`, 'POST', batch);
    assert.equal(bulk.status, 207);
    const expected = [...written, sampleTerm(10), sampleTerm(-5, { category: 'devops' })];
    assert.deepEqual(await listTerms(first.url), expected);

    assert.deepEqual(await first.stop('SIGTERM'), { code: 0, signal: null });
    assert.ok(first.logs.some((line) => line.msg === 'stopped'));
    assert.equal(first.stderr(), '');

    const second = await startServer({ DATABASE_URL: databaseUrl });
    assert.deepEqual(await listTerms(second.url), expected);
    assert.deepEqual((await send(`${second.url}/terms/1`, 'GET')).body, written[1]);
    const again = await send(`${second.url}/terms/bulk`, 'POST', [sampleTerm(10)]);
    assert.deepEqual(again.body, [
      { index: 0, status: 'error', detail: 'Term with ID 10 already exists.' },
    ]);
    assert.deepEqual(await second.stop('SIGINT'), { code: 0, signal: null });
  });

  test('SIGTERM lets a request in flight finish before the process exits', TIMEOUT, async () => {
    const databaseUrl = `sqlite:${path.join(tempDir(), 'glossary.db')}`;
    // Were shutdown to wait for the client's idle keep-alive connection (72 s), it would time
    // out and exit 1. 30 s leave a loaded machine time for the import and the store's close.
    const server = await startServer({ DATABASE_URL: databaseUrl, SHUTDOWN_TIMEOUT_MS: '30000' });
    const batch = Array.from({ length: 2000 }, (_, i) => sampleTerm(i + 1));
    const body = Buffer.from(JSON.stringify(batch));

    // `Expect: 100-continue` makes the server confirm it holds the request before the body is
    // sent, so the signal provably arrives while the request is in flight.
    const agent = new http.Agent({ keepAlive: true });
    const request = http.request(`${server.url}/terms/bulk`, {
      agent,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-length': body.length,
        expect: '100-continue',
      },
    });
    const responded = once(request, 'response');
    await once(request, 'continue');
    server.child.kill('SIGTERM');
    await server.waitForLog((line) => line.msg === 'shutting down');
    request.end(body);
    const [response] = (await responded) as [http.IncomingMessage];
    let text = '';
    for await (const chunk of response) text += chunk;
    assert.equal(response.statusCode, 207);
    assert.equal(response.headers.connection, 'close');
    const results = JSON.parse(text) as { status: string }[];
    assert.equal(results.length, 2000);
    assert.ok(results.every((result) => result.status === 'created'));
    assert.deepEqual(await server.exited, { code: 0, signal: null });
    agent.destroy();

    const restarted = await startServer({ DATABASE_URL: databaseUrl });
    assert.deepEqual(await listTerms(restarted.url), batch);
    await restarted.stop();
  });

  test(
    'after SIGKILL under concurrent load, every acknowledged write is there and no batch is split',
    TIMEOUT,
    async () => {
      const databaseUrl = `sqlite:${path.join(tempDir(), 'glossary.db')}`;
      const server = await startServer({ DATABASE_URL: databaseUrl });
      const acknowledged = new Map<number, Term>();
      const batches: { ids: number[]; acknowledged: boolean }[] = [];
      const halfBatchesSeen: number[][] = [];
      let killed = false;
      let writesInFlight = 0;
      let writesInFlightAtKill = 0;
      const enoughAcks = () =>
        acknowledged.size >= 300 && batches.filter((b) => b.acknowledged).length >= 4;
      const killWhenEnough = () => {
        if (!killed && enoughAcks()) {
          killed = true;
          writesInFlightAtKill = writesInFlight;
          server.child.kill('SIGKILL');
        }
      };

      // Each client owns an id range, so every id is written once and can be told apart.
      const singleWriter = async (client: number) => {
        for (let i = 0; ; i += 1) {
          const term = sampleTerm(client * 1_000_000 + i, { term: `single ${client}/${i}` });
          writesInFlight += 1;
          try {
            const response = await send(`${server.url}/terms`, 'POST', term);
            if (response.status !== 201) throw new Error(`POST /terms ${response.status}`);
          } catch (error) {
            if (killed) return;
            throw error;
          } finally {
            writesInFlight -= 1;
          }
          acknowledged.set(term.id, term);
          killWhenEnough();
        }
      };
      const bulkWriter = async (client: number) => {
        for (let i = 0; ; i += 1) {
          const terms = Array.from({ length: 25 }, (_, k) =>
            sampleTerm(client * 1_000_000 + i * 25 + k, { term: `bulk ${client}/${i}/${k}` }),
          );
          const batch = { ids: terms.map((term) => term.id), acknowledged: false };
          batches.push(batch);
          writesInFlight += 1;
          try {
            const response = await send(`${server.url}/terms/bulk`, 'POST', terms);
            if (response.status !== 207) throw new Error(`POST /terms/bulk ${response.status}`);
            const created = (response.body as { status: string }[]).filter(
              (result) => result.status === 'created',
            );
            assert.equal(created.length, terms.length);
          } catch (error) {
            if (killed) return;
            throw error;
          } finally {
            writesInFlight -= 1;
          }
          batch.acknowledged = true;
          for (const term of terms) acknowledged.set(term.id, term);
          killWhenEnough();
        }
      };
      // A reader during the load never sees part of a batch.
      const reader = async () => {
        for (;;) {
          let listed: Term[];
          try {
            listed = await listTerms(server.url);
          } catch (error) {
            if (killed) return;
            throw error;
          }
          const ids = new Set(listed.map((term) => term.id));
          for (const batch of batches) {
            const present = batch.ids.filter((id) => ids.has(id)).length;
            if (present !== 0 && present !== batch.ids.length) halfBatchesSeen.push(batch.ids);
          }
        }
      };
      await Promise.all([singleWriter(1), singleWriter(2), bulkWriter(3), bulkWriter(4), reader()]);
      assert.deepEqual(await server.exited, { code: null, signal: 'SIGKILL' });
      assert.deepEqual(halfBatchesSeen, []);
      // The other writers each had a request outstanding: the kill hit the load mid-way.
      assert.ok(writesInFlightAtKill >= 1, `${writesInFlightAtKill} writes in flight at the kill`);

      const restarted = await startServer({ DATABASE_URL: databaseUrl });
      const stored = await listTerms(restarted.url);
      const byId = new Map(stored.map((term) => [term.id, term]));
      assert.equal(byId.size, stored.length, 'no term is stored twice');
      const lost = [...acknowledged.keys()].filter((id) => !byId.has(id));
      assert.deepEqual(lost, [], 'every acknowledged write survived');
      for (const [id, term] of acknowledged) assert.deepEqual(byId.get(id), term);
      for (const batch of batches) {
        const present = batch.ids.filter((id) => byId.has(id)).length;
        assert.ok(
          present === 0 || present === batch.ids.length,
          `batch ${batch.ids[0]}.. is all there or not at all (${present}/${batch.ids.length})`,
        );
      }
      // Whatever else was stored is a whole, well-formed term that a client sent.
      for (const term of stored) {
        assert.deepEqual(Object.keys(term), ['id', 'term', 'definition', 'category', 'see_also']);
        assert.equal(term.definition, `Definition of term ${term.id}.`);
      }
      await restarted.stop();
    },
  );

  test(
    'two processes on one SQLite file never create the same id twice through bulk',
    TIMEOUT,
    async () => {
      const databaseUrl = `sqlite:${path.join(tempDir(), 'glossary.db')}`;
      const servers = [
        await startServer({ DATABASE_URL: databaseUrl }),
        await startServer({ DATABASE_URL: databaseUrl }),
      ];
      const ids = Array.from({ length: 30 }, (_, i) => 500 + i);
      const responses = await Promise.all(
        Array.from({ length: 12 }, (_, k) =>
          send(
            `${servers[k % 2]?.url}/terms/bulk`,
            'POST',
            // Each request carries the ids in another order, so the batches interleave.
            ids.map((_, i) => sampleTerm(ids[(i + k * 7) % ids.length] ?? 0)),
          ),
        ),
      );
      const created = responses.flatMap((response) => {
        assert.equal(response.status, 207);
        return (response.body as { status: string; id?: number }[])
          .filter((result) => result.status === 'created')
          .map((result) => result.id);
      });
      assert.deepEqual(
        created.sort((a, b) => (a ?? 0) - (b ?? 0)),
        ids,
      );
      for (const server of servers) {
        assert.deepEqual(
          (await listTerms(server.url)).map((term) => term.id).sort((a, b) => a - b),
          ids,
        );
      }
      for (const server of servers) assert.equal((await server.stop()).code, 0);
    },
  );

  test(
    'with no DATABASE_URL it stores in ./data/glossary.db, creating the folder',
    TIMEOUT,
    async () => {
      const cwd = tempDir();
      const server = runServer({ DATABASE_URL: '' }, cwd);
      const listening = await server.waitForLog((line) =>
        String(line.msg).startsWith('Server listening at '),
      );
      const url = String(listening.msg).slice('Server listening at '.length);
      assert.equal((await send(`${url}/terms`, 'POST', sampleTerm(1))).status, 201);
      server.child.kill('SIGTERM');
      assert.deepEqual(await server.exited, { code: 0, signal: null });
      const db = openSqlite(path.join(cwd, 'data', 'glossary.db'), { readonly: true });
      try {
        assert.equal(db.prepare('SELECT count(*) FROM terms').pluck().get(), 1);
      } finally {
        db.close();
      }
    },
  );

  test(
    'a bad environment value stops it with exit code 1 and one clear line on stderr',
    TIMEOUT,
    async () => {
      const bad = runServer({ PORT: 'abc' });
      assert.deepEqual(await bad.exited, { code: 1, signal: null });
      assert.equal(
        bad.stderr(),
        'glossary: invalid configuration: PORT="abc" must be a whole number from 0 to 65535\n',
      );
      const several = runServer({ PORT: '99999', LOG_LEVEL: 'chatty' });
      assert.deepEqual(await several.exited, { code: 1, signal: null });
      assert.equal(several.stderr().split('\n').length, 2, 'one line and its newline');
      assert.match(several.stderr(), /PORT="99999" .*; LOG_LEVEL="chatty" /);
    },
  );

  test(
    'a database of another application stops it with one clear line, the file untouched',
    TIMEOUT,
    async () => {
      const file = path.join(tempDir(), 'other.db');
      const db = openSqlite(file);
      db.exec('CREATE TABLE accounts (id INTEGER PRIMARY KEY)');
      db.close();
      const before = fs.readFileSync(file);
      const server = runServer({ DATABASE_URL: `sqlite:${file}` });
      assert.deepEqual(await server.exited, { code: 1, signal: null });
      assert.equal(
        server.stderr(),
        `glossary: cannot start: ${file} is an SQLite database of another application\n`,
      );
      assert.deepEqual(fs.readFileSync(file), before);
    },
  );
});
