import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { sampleTerm } from '../helpers/app.ts';
import { backends } from '../helpers/backends.ts';
import { eventually } from '../helpers/eventually.ts';
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
      const accepted: net.Socket[] = [];
      const onConnection = (socket: net.Socket) => accepted.push(socket);
      glossary.app.server.on('connection', onConnection);
      for (let i = 0; i < STALLED; i += 1) sockets.push(await stalledList(glossary.url));
      // Every request has been read, and the lists wait on their clients: on SQLite each one has
      // filled its socket's buffers; on PostgreSQL as many as it streams at once (its list
      // slots) have, and the others wait for a slot, writing nothing yet.
      const ends = () =>
        sockets.map((client) => accepted.find((socket) => socket.remotePort === client.localPort));
      const stalled = () => ends().filter((socket) => socket?.writableNeedDrain).length;
      const read = () => ends().filter((socket) => (socket?.bytesRead ?? 0) > 0).length;
      const enough = backend.name === 'sqlite' ? STALLED : 1;
      await eventually(
        () => read() === STALLED && stalled() >= enough,
        () => `${read()} of ${STALLED} requests read, ${stalled()} lists stalled`,
      );
      glossary.app.server.off('connection', onConnection);
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
