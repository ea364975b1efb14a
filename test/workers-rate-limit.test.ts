import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { tempDir } from './helpers/backends.ts';
import { killLeftovers, startServer } from './helpers/server-process.ts';

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
