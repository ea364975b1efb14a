import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { sampleTerm, startApp } from '../helpers/app.ts';
import { backends, tempDir } from '../helpers/backends.ts';
import { killLeftovers, startServer } from '../helpers/server-process.ts';

/** The value of one sample line of the Prometheus text format, or undefined. */
function sample(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const wanted = Object.entries(labels).map(([key, value]) => `${key}="${value}"`);
  for (const line of text.split('\n')) {
    const match = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = (match[2] ?? '').split(',');
    if (wanted.every((pair) => have.includes(pair))) return Number(match[3]);
  }
  return undefined;
}

for (const backend of backends()) {
  describe(`GET /metrics (${backend.name})`, () => {
    test('counts requests by route pattern, method and status, times store operations, counts terms', async () => {
      const t = await startApp(backend, { rateLimit: { max: 4, windowMs: 60_000 } });
      try {
        const created = await t.app.inject({
          method: 'POST',
          url: '/terms',
          payload: sampleTerm(7),
        });
        assert.equal(created.statusCode, 201);
        await t.app.inject({ method: 'GET', url: '/terms/7' });
        await t.app.inject({ method: 'HEAD', url: '/terms/7' });
        await t.app.inject({ method: 'GET', url: '/nowhere' });
        for (let i = 0; i < 3; i += 1) await t.app.inject({ method: 'GET', url: '/metrics' });
        const response = await t.app.inject({ method: 'GET', url: '/metrics' });
        assert.equal(response.statusCode, 200, 'never rate limited');
        assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/);
        const text = response.body;
        const count = (route: string, method: string, status: string) =>
          sample(text, 'glossary_http_request_duration_seconds_count', {
            route,
            method,
            status_code: status,
          });
        assert.equal(count('/terms', 'POST', '201'), 1);
        assert.equal(count('/terms/:id', 'GET', '200'), 1);
        assert.equal(count('/terms/:id', 'HEAD', '200'), 1);
        assert.equal(count('unknown', 'GET', '404'), 1, 'a path no route matches');
        assert.ok(
          (sample(text, 'glossary_store_operation_duration_seconds_count', {
            operation: 'create',
          }) ?? 0) >= 1,
        );
        assert.ok(
          (sample(text, 'glossary_store_operation_duration_seconds_count', { operation: 'get' }) ??
            0) >= 1,
        );
        assert.equal(sample(text, 'glossary_terms'), 1);
        assert.ok((sample(text, 'process_resident_memory_bytes') ?? 0) > 0);
        assert.ok(sample(text, 'nodejs_eventloop_lag_seconds') !== undefined);
      } finally {
        await t.close();
      }
    });
  });
}

describe('GET /metrics with WORKERS=2', () => {
  after(killLeftovers);

  test('any worker answers for all of them, summed', { timeout: 60_000 }, async () => {
    const server = await startServer({
      DATABASE_URL: `sqlite:${path.join(tempDir(), 'g.db')}`,
      WORKERS: '2',
    });
    // The primary says `ready` once every worker listens; a worker's own `ready` comes sooner.
    await server.waitForLog((line) => line.msg === 'ready' && line.workers === 2);
    // New connections each time, so both workers take some.
    for (let i = 0; i < 20; i += 1) {
      const response = await fetch(`${server.url}/healthz`, { headers: { connection: 'close' } });
      assert.equal(response.status, 200);
    }
    const pids = new Set(
      server.logs
        .filter((line) => line.msg === 'request completed' && line.url === '/healthz')
        .map((line) => line.pid),
    );
    assert.equal(pids.size, 2, 'both workers answered some');
    const text = await (await fetch(`${server.url}/metrics`)).text();
    const healthz = sample(text, 'glossary_http_request_duration_seconds_count', {
      route: '/healthz',
      method: 'GET',
      status_code: '200',
    });
    assert.equal(healthz, 20);
    assert.equal(sample(text, 'glossary_terms'), 0);
    await server.stop();
  });
});
