import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { tempDir } from '../helpers/backends.ts';
import { runCli } from '../helpers/run-cli.ts';
import { killLeftovers, startServer } from '../helpers/server-process.ts';

describe('RATE_LIMIT with WORKERS=2', () => {
  after(killLeftovers);

  test('one limit per client, whichever worker answers', { timeout: 60_000 }, async () => {
    const server = await startServer({
      DATABASE_URL: `sqlite:${path.join(tempDir(), 'g.db')}`,
      WORKERS: '2',
      RATE_LIMIT: '5/minute',
    });
    try {
      await server.waitForLog((line) => line.msg === 'ready' && line.workers === 2);
      const statuses: number[] = [];
      // A new connection each time, so both workers take some.
      for (let i = 0; i < 12; i += 1) {
        const response = await fetch(`${server.url}/terms/1`, {
          headers: { connection: 'close' },
        });
        statuses.push(response.status);
        if (response.status === 429) {
          assert.ok(Number(response.headers.get('retry-after')) > 0);
          assert.match(((await response.json()) as { detail: string }).detail, /at most 5 per 60/);
        } else {
          await response.body?.cancel();
        }
      }
      assert.deepEqual(statuses, [...Array(5).fill(404), ...Array(7).fill(429)]);
      const answeredBy = new Set(
        server.logs
          .filter((line) => line.msg === 'request completed' && line.url === '/terms/1')
          .map((line) => line.pid),
      );
      assert.equal(answeredBy.size, 2, 'both workers answered some');
      // The probes are never limited.
      assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
    } finally {
      await server.stop();
    }
  });
});

describe('AUTH_FAILURE_LIMIT with WORKERS=2', () => {
  after(killLeftovers);

  test('one count of failures per client, whichever worker answers', {
    timeout: 60_000,
  }, async () => {
    const url = `sqlite:${path.join(tempDir(), 'g.db')}`;
    const server = await startServer({
      DATABASE_URL: url,
      WORKERS: '2',
      AUTH_FAILURE_LIMIT: '3/minute',
    });
    try {
      await server.waitForLog((line) => line.msg === 'ready' && line.workers === 2);
      const env = { ...process.env, DATABASE_URL: url };
      const token = (await runCli(['token', 'create', 'ci'], { env })).stdout.trim();
      // A new connection each time, so both workers take some.
      const remove = async (presented: string) => {
        const response = await fetch(`${server.url}/terms/1`, {
          method: 'DELETE',
          headers: { connection: 'close', authorization: `Bearer ${presented}` },
        });
        if (response.status === 429) {
          assert.ok(Number(response.headers.get('retry-after')) > 0);
          assert.match(((await response.json()) as { detail: string }).detail, /at most 3 per 60/);
        } else {
          await response.body?.cancel();
        }
        return response.status;
      };
      assert.equal(await remove(token), 404, 'the token is proven from this address');
      // Sent all at once, so both workers check some while the others are under way.
      const guesses = Array.from({ length: 10 }, (_, i) => `glos_${String(i).padStart(55, 'G')}`);
      const statuses = (await Promise.all(guesses.map(remove))).sort();
      assert.deepEqual(statuses, [...Array(3).fill(401), ...Array(7).fill(429)]);
      assert.equal(await remove(guesses[0] as string), 429);
      const answeredBy = (status: number) =>
        new Set(
          server.logs
            .filter((line) => line.msg === 'request completed' && line.statusCode === status)
            .map((line) => line.pid),
        );
      assert.equal(
        new Set([...answeredBy(401), ...answeredBy(429)]).size,
        2,
        'both workers refused',
      );
      // The proven token keeps working in both workers.
      for (let i = 0; i < 6; i += 1) assert.equal(await remove(token), 404);
      assert.equal(answeredBy(404).size, 2, 'both workers let the proven token through');
    } finally {
      await server.stop();
    }
  });
});
