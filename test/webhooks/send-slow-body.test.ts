import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { send } from '../../src/webhooks/send.ts';

/**
 * An endpoint that answers 200 at once and never ends its body has taken the delivery: the
 * status decides (docs/webhooks.md, "Delivered is any 2xx answer within WEBHOOK_TIMEOUT_MS"),
 * not the body. It was once counted as timed out, retried, and the endpoint disabled.
 */
const open = new Set<http.ServerResponse>();
let base = '';
const server = http.createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    response.writeHead(200, { 'content-type': 'text/plain' });
    response.write('working'); // the headers and a first byte go out; the end never comes
    open.add(response);
  });
});
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  for (const response of open) response.destroy();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

test('a 2xx whose body never ends is a delivery, not a timeout', async () => {
  const result = await send({
    url: `${base}/slow-body`,
    headers: { 'webhook-id': 'msg_1_1' },
    body: '{"a":1}',
    // Long enough that a stalled event loop cannot fire it first (timers run before I/O):
    // waiting for the body would still fail the test, after 5 s.
    timeoutMs: 5000,
    allowPrivate: true,
  });
  assert.equal(result.status, 200);
  assert.equal(result.error, null);
});
