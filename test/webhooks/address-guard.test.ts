import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import {
  guardedLookup,
  guardSocket,
  RefusedAddressError,
  refusedRange,
} from '../../src/webhooks/address-guard.ts';
import { send } from '../../src/webhooks/send.ts';

/** Deliveries to loopback, private, link-local and metadata addresses are refused by default. */

let requests = 0;
let port = 0;
const server = http.createServer((_request, response) => {
  requests += 1;
  response.end('ok');
});
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '::', resolve));
  port = (server.address() as AddressInfo).port;
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

const attempt = (url: string, allowPrivate: boolean) =>
  send({ url, headers: {}, body: '{}', timeoutMs: 5000, allowPrivate });

describe('the address guard', () => {
  test('ranges: only public unicast addresses pass', () => {
    for (const [address, range] of [
      ['127.0.0.1', 'loopback'],
      ['::1', 'loopback'],
      ['::ffff:127.0.0.1', 'loopback'],
      ['::ffff:10.1.2.3', 'private'],
      ['10.1.2.3', 'private'],
      ['172.16.0.1', 'private'],
      ['192.168.1.1', 'private'],
      ['169.254.169.254', 'linkLocal'],
      ['fe80::1', 'linkLocal'],
      ['fd00::1', 'uniqueLocal'],
      ['100.64.0.1', 'carrierGradeNat'],
      ['0.0.0.0', 'unspecified'],
      ['::', 'unspecified'],
      ['255.255.255.255', 'broadcast'],
      ['224.0.0.1', 'multicast'],
      ['240.0.0.1', 'reserved'],
    ] as const) {
      assert.equal(refusedRange(address), range, address);
    }
    assert.equal(refusedRange('93.184.215.14'), undefined);
    assert.equal(refusedRange('2606:4700:4700::1111'), undefined);
    assert.equal(refusedRange('::ffff:8.8.8.8'), undefined);
  });

  test('IP literals are refused before connecting: loopback, mapped loopback, private, metadata', async () => {
    for (const host of [
      `127.0.0.1:${port}`,
      `[::1]:${port}`,
      `[::ffff:127.0.0.1]:${port}`,
      `[::ffff:7f00:1]:${port}`,
      // WHATWG URL parsing makes this 127.0.0.1, as a connection would.
      `2130706433:${port}`,
      `10.0.0.1:${port}`,
      '169.254.169.254',
    ]) {
      const result = await attempt(`http://${host}/hook`, false);
      assert.equal(result.refused, true, host);
      assert.equal(result.status, null);
      assert.match(result.error ?? '', /^refused: \S+ is (a|an|the) [\w -]+ address/, host);
    }
    assert.equal(requests, 0, 'no refused attempt reached the server');
  });

  test('a name that resolves to a loopback address is refused, naming the address', async () => {
    const result = await attempt(`http://localhost:${port}/hook`, false);
    assert.equal(result.refused, true);
    assert.match(result.error ?? '', /^refused: (127\.0\.0\.1|::1) is a loopback address/);
    assert.equal(requests, 0);

    const looked = await new Promise<unknown>((resolve) =>
      guardedLookup('localhost', { all: true }, (error) => resolve(error)),
    );
    assert.ok(looked instanceof RefusedAddressError);
  });

  test('the socket is checked once connected: a connection to a loopback address is destroyed', async () => {
    const socket = net.connect(port, '127.0.0.1');
    guardSocket(socket);
    const error = await new Promise<Error>((resolve) => socket.on('error', resolve));
    assert.ok(error instanceof RefusedAddressError);
    assert.equal(error.address, '127.0.0.1');
  });

  test('allowPrivate (WEBHOOK_ALLOW_PRIVATE=true) lets every one of them through', async () => {
    for (const host of ['127.0.0.1', '[::1]', '[::ffff:127.0.0.1]', 'localhost']) {
      const before = requests;
      const result = await attempt(`http://${host}:${port}/hook`, true);
      assert.equal(result.status, 200, `${host}: ${result.error}`);
      assert.equal(result.refused, false);
      assert.equal(requests, before + 1);
    }
  });
});
