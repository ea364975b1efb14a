import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { startAddresses } from '../../src/start-message.ts';
import { tempDir } from '../helpers/backends.ts';
import { killLeftovers, startServer } from '../helpers/server-process.ts';

/** With ALLOWED_HOSTS, the start message names a host the service answers, not a 421. */

/** GET `url` sent to the service's own address, with the URL's host in the Host header. */
function statusOf(url: string, port: string): Promise<number | undefined> {
  const { host, pathname } = new URL(url);
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path: pathname, headers: { host } }, (response) => {
        response.resume();
        resolve(response.statusCode);
      })
      .on('error', reject);
  });
}

describe('the start message with ALLOWED_HOSTS', () => {
  after(killLeftovers);

  test('names the page by a host it allows (localhost for the loopback), and the page answers', async () => {
    const db = `sqlite:${path.join(tempDir(), 'g.db')}`;
    const server = await startServer({
      DATABASE_URL: db,
      ALLOWED_HOSTS: 'glossary.internal,localhost',
    });
    try {
      const line = await server.waitForLog((entry) => typeof entry.page === 'string');
      const port = new URL(server.url).port;
      assert.equal(line.page, `http://localhost:${port}/`);
      assert.equal(line.docs, `http://localhost:${port}/docs`);
      assert.equal(await statusOf(String(line.page), port), 200);
      assert.equal(await statusOf(String(line.docs), port), 200);
    } finally {
      await server.stop();
    }
  });

  test('every HOST with a list of allowed names', () => {
    const table: [string, string[], string, string | undefined][] = [
      ['127.0.0.1', ['glossary.internal'], 'http://glossary.internal:8000/', undefined],
      ['127.0.0.1', ['127.0.0.1'], 'http://127.0.0.1:8000/', undefined],
      [
        '0.0.0.0',
        ['glossary.internal', 'localhost'],
        'http://localhost:8000/',
        'http://glossary.internal:8000/',
      ],
      ['::', ['box'], 'http://box:8000/', 'http://box:8000/'],
      ['0.0.0.0', ['localhost'], 'http://localhost:8000/', undefined],
    ];
    for (const [host, allowed, page, elsewhere] of table) {
      const addresses = startAddresses(host, 8000, 'box', allowed);
      assert.equal(addresses.page, page, `${host} ${allowed}`);
      assert.equal(addresses.elsewhere, elsewhere, `${host} ${allowed}`);
    }
  });
});
