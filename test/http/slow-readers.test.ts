import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, test } from 'node:test';
import { type ListeningApp, listenApp } from '../helpers/listening-app.ts';

/**
 * A client that reads a long list slowly but steadily must get all of it: only a connection
 * on which nothing moves is idle. Scaled down: an idle timeout of 1.5 s, a list of about
 * 14 MB (more than the kernel's socket buffers hold on either side), read 64 KiB every 50 ms.
 */
const IDLE_TIMEOUT_MS = 1500;

async function load(glossary: ListeningApp, count: number): Promise<void> {
  const terms = Array.from({ length: count }, (_, i) => ({
    id: i,
    term: `Term ${i}`,
    definition: `A definition long enough to make the list weigh: ${'x'.repeat(1100)} ${i}.`,
    category: 'backend',
  }));
  for (let start = 0; start < count; start += 5000) {
    const response = await fetch(`${glossary.url}/terms/bulk`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(terms.slice(start, start + 5000)),
    });
    assert.equal(response.status, 207);
  }
}

describe('a slow but steady reader', () => {
  test('gets the whole list, with its final chunk, however many idle timeouts it takes', {
    timeout: 120_000,
  }, async () => {
    const glossary = await listenApp(undefined, { idleTimeoutMs: IDLE_TIMEOUT_MS });
    try {
      await load(glossary, 12_000);
      const { port } = new URL(glossary.url);
      const socket = net.connect({ port: Number(port), host: '127.0.0.1' });
      // Keep the kernel's buffers small, so the server really waits on this reader.
      socket.setNoDelay(true);
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write('GET /terms HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      socket.pause();
      const chunks: Buffer[] = [];
      let ended = false;
      socket.on('end', () => {
        ended = true;
      });
      socket.on('close', () => {
        ended = true;
      });
      const started = performance.now();
      while (!ended) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        let read = 0;
        for (let chunk = socket.read(); chunk !== null; chunk = socket.read()) {
          chunks.push(chunk as Buffer);
          read += (chunk as Buffer).length;
          if (read >= 64 * 1024) break;
        }
      }
      for (let chunk = socket.read(); chunk !== null; chunk = socket.read())
        chunks.push(chunk as Buffer);
      const text = Buffer.concat(chunks).toString('utf8');
      const body = text.slice(text.indexOf('\r\n\r\n') + 4);
      assert.match(text, /^HTTP\/1\.1 200/);
      assert.ok(
        performance.now() - started > 3 * IDLE_TIMEOUT_MS,
        'the read took several idle timeouts',
      );
      assert.ok(body.endsWith('0\r\n\r\n'), `the final chunk arrived (${body.length} bytes read)`);
    } finally {
      await glossary.close();
    }
  });
});
