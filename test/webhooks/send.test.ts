import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { retryAfter, send } from '../../src/webhooks/send.ts';

/** One attempt: a POST with the given headers, its outcome, never a rejection. */

const seen: http.IncomingHttpHeaders[] = [];
const bodies: string[] = [];
const hanging = new Set<http.ServerResponse>();
let base = '';
const server = http.createServer((request, response) => {
  let body = '';
  request.setEncoding('utf8').on('data', (chunk: string) => {
    body += chunk;
  });
  request.on('end', () => {
    seen.push(request.headers);
    bodies.push(body);
    const path = request.url ?? '';
    if (path === '/ok') response.writeHead(204).end();
    else if (path === '/fail') response.writeHead(500).end('x'.repeat(100_000));
    else if (path === '/later') response.writeHead(503, { 'retry-after': '120' }).end();
    else if (path === '/date') {
      response.writeHead(429, { 'retry-after': new Date(Date.now() + 60_000).toUTCString() }).end();
    } else if (path === '/moved') response.writeHead(302, { location: '/ok' }).end();
    else if (path === '/hang') hanging.add(response);
    else response.writeHead(404).end();
  });
});
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  for (const response of hanging) response.destroy();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

const post = (path: string, timeoutMs = 5000, signal?: AbortSignal) =>
  send({
    url: `${base}${path}`,
    headers: { 'webhook-id': 'msg_1_1' },
    body: '{"a":1}',
    timeoutMs,
    allowPrivate: true,
    signal,
  });

describe('send: one delivery attempt', () => {
  test('a 2xx succeeds; the body is posted as JSON with the headers and a user agent', async () => {
    const result = await post('/ok');
    assert.deepEqual(
      { ...result, durationMs: 0 },
      {
        status: 204,
        error: null,
        refused: false,
        retryAfterMs: null,
        durationMs: 0,
      },
    );
    const headers = seen.at(-1);
    assert.equal(headers?.['content-type'], 'application/json');
    assert.equal(headers?.['user-agent'], 'glossary-webhooks');
    assert.equal(headers?.['webhook-id'], 'msg_1_1');
    assert.equal(bodies.at(-1), '{"a":1}');
  });

  test('a 500 fails with its status, its long body not read', async () => {
    const result = await post('/fail');
    assert.equal(result.status, 500);
    assert.equal(result.error, 'HTTP 500');
  });

  test('Retry-After in seconds and as an HTTP date', async () => {
    assert.equal((await post('/later')).retryAfterMs, 120_000);
    const dated = (await post('/date')).retryAfterMs ?? 0;
    assert.ok(dated > 50_000 && dated <= 61_000, String(dated)); // a wall clock stepped back
    assert.equal(retryAfter('soon'), null);
    assert.equal(retryAfter(new Date(0).toUTCString()), 0);
  });

  test('a redirect is a failure and is not followed', async () => {
    const before = seen.length;
    const result = await post('/moved');
    assert.equal(result.status, 302);
    assert.equal(result.error, 'HTTP 302');
    assert.equal(seen.length, before + 1, 'only the first request was made');
  });

  test('an endpoint that never answers times out after the attempt timeout', async () => {
    const result = await post('/hang', 200);
    assert.equal(result.status, null);
    assert.equal(result.error, 'timed out after 200 ms');
    assert.ok(result.durationMs >= 190, String(result.durationMs));
  });

  test('an unreachable endpoint, a URL that is not http, and an abort are failures', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const refused = await send({
      url: `http://127.0.0.1:${port}/`,
      headers: {},
      body: '{}',
      timeoutMs: 5000,
      allowPrivate: true,
    });
    assert.equal(refused.status, null);
    assert.match(refused.error ?? '', /ECONNREFUSED/);

    const ftp = await send({
      url: 'ftp://example.com/',
      headers: {},
      body: '{}',
      timeoutMs: 5000,
      allowPrivate: true,
    });
    assert.match(ftp.error ?? '', /not an http or https URL/);

    const stop = new AbortController();
    const pending = post('/hang', 60_000, stop.signal);
    stop.abort();
    assert.equal((await pending).error, 'the deliverer stopped');
  });
});
