import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import { test } from 'node:test';
import { deliveredBytes, halfCloseAfterAnswer } from '../../src/http/node-internals/socket.ts';

/**
 * src/http/node-internals/ reaches past Node's documented API. Each piece is checked here on
 * the running Node line (CI runs every line the service supports): that what it reads still
 * exists, and that Node still behaves as the service expects.
 */

async function connectedPair(): Promise<{ ours: net.Socket; peer: net.Socket; close: () => void }> {
  const server = net.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  const accepted = once(server, 'connection') as Promise<[net.Socket]>;
  const peer = net.connect(port, '127.0.0.1');
  const [ours] = await accepted;
  return {
    ours,
    peer,
    close: () => {
      ours.destroy();
      peer.destroy();
      server.close();
    },
  };
}

test("a connected socket's handle still has a numeric writeQueueSize", async () => {
  const { ours, close } = await connectedPair();
  try {
    const handle = (ours as net.Socket & { _handle?: { writeQueueSize?: unknown } })._handle;
    assert.ok(handle, 'socket._handle is gone');
    assert.equal(typeof handle.writeQueueSize, 'number');
  } finally {
    close();
  }
});

test('deliveredBytes counts what the kernel took: less than written while the peer does not read, all of it once it has', async () => {
  const { ours, peer, close } = await connectedPair();
  try {
    peer.pause();
    const chunk = Buffer.alloc(1024 * 1024, 'x');
    let written = 0;
    // Past what the kernel's buffers hold, so part of it waits in Node and libuv.
    let more = true;
    while (more && written < 64 * 1024 * 1024) {
      more = ours.write(chunk);
      written += chunk.length;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    const early = deliveredBytes(ours);
    assert.ok(early >= 0 && early < written, `${early} of ${written}`);
    let read = 0;
    peer.on('data', (data: Buffer) => {
      read += data.length;
    });
    peer.resume();
    await once(ours, 'drain');
    while (read < written) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(deliveredBytes(ours), written);
  } finally {
    close();
  }
});

test("Node's HTTP server still ends a Connection: close answer with destroySoon(), which halfCloseAfterAnswer makes a half close", async () => {
  let called = false;
  let serverSocket: net.Socket | undefined;
  const afterAnswer: Buffer[] = [];
  const server = http.createServer((request, response) => {
    const socket = request.socket;
    serverSocket = socket;
    assert.equal(typeof socket.destroySoon, 'function');
    halfCloseAfterAnswer(socket);
    const halfClose = socket.destroySoon;
    socket.destroySoon = () => {
      called = true;
      halfClose.call(socket);
    };
    response.writeHead(413, { connection: 'close', 'content-length': '2' }).end('no');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  // As a client that goes on sending after the answer: its side stays open after the FIN.
  const client = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  try {
    client.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nsome');
    let answer = '';
    client.on('data', (data: Buffer) => {
      answer += data.toString();
    });
    await once(client, 'end');
    assert.match(answer, /^HTTP\/1\.1 413 /);
    assert.ok(called, 'destroySoon was not called after the answer');
    const socket = serverSocket as net.Socket;
    assert.equal(socket.destroyed, false, 'the socket was destroyed, not half closed');
    socket.on('data', (data: Buffer) => afterAnswer.push(data));
    client.write('the rest');
    while (Buffer.concat(afterAnswer).toString() !== 'the rest') {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    client.destroy();
    serverSocket?.destroy();
    server.close();
  }
});
