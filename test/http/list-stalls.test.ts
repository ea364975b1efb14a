import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { sampleTerm } from '../helpers/app.ts';
import { backends } from '../helpers/backends.ts';
import { type ListeningApp, listenApp } from '../helpers/listening-app.ts';

/**
 * Clients that ask for the whole list and then stop reading (issue 13, point 1). On PostgreSQL
 * a streaming list holds a pooled connection while its client reads; such clients must never
 * hold what other requests need.
 */

const TERMS = 15_000;
const STALLED = 8;

/** Sends `GET /terms` and never reads the answer; the socket, to close later. */
function stalledList(url: string): Promise<net.Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => {
      socket.pause();
      socket.write(`GET /terms HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
      resolve(socket);
    });
    socket.on('error', reject);
  });
}

for (const backend of backends()) {
  describe(`stalled list readers (${backend.name})`, () => {
    let glossary: ListeningApp;
    const sockets: net.Socket[] = [];
    before(async () => {
      glossary = await listenApp(backend);
      // About 45 MB of list: far more than the socket buffers take, so the server must wait.
      const definition = 'x'.repeat(3000);
      for (let start = 0; start < TERMS; start += 5000) {
        const batch = Array.from({ length: 5000 }, (_, i) =>
          sampleTerm(start + i, { definition: `${definition} ${start + i}` }),
        );
        const response = await fetch(`${glossary.url}/terms/bulk`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(batch),
        });
        assert.equal(response.status, 207);
      }
    });
    after(async () => {
      for (const socket of sockets) socket.destroy();
      // fetch's own keep-alive connections would otherwise hold the close until they time out.
      glossary.app.server.closeAllConnections();
      await glossary.close();
    });

    test('other requests are answered while lists stall; the lists resume once they go', async () => {
      for (let i = 0; i < STALLED; i += 1) sockets.push(await stalledList(glossary.url));
      // Give the lists time to reach the store and fill the socket buffers.
      await new Promise((resolve) => setTimeout(resolve, 500));
      for (let round = 0; round < 3; round += 1) {
        assert.equal((await fetch(`${glossary.url}/terms/5`)).status, 200);
        assert.equal((await fetch(`${glossary.url}/terms?limit=100&offset=7000`)).status, 200);
        assert.equal((await fetch(`${glossary.url}/readyz`)).status, 200);
        const created = await fetch(`${glossary.url}/terms`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(sampleTerm(100_000 + round)),
        });
        assert.equal(created.status, 201);
      }
      for (const socket of sockets.splice(0)) socket.destroy();
      const whole = await fetch(`${glossary.url}/terms`);
      assert.equal(whole.status, 200);
      assert.equal(((await whole.json()) as unknown[]).length, TERMS + 3);
    });
  });
}
