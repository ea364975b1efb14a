import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { startAddresses } from '../../src/start-message.ts';
import { tempDir } from '../helpers/backends.ts';
import { killLeftovers, startServer, startService } from '../helpers/server-process.ts';

/**
 * Where the page and the API reference are, said once the service listens (issue 32): a log
 * line after `ready` (standard output stays JSON, one record a line), by one process only.
 */

const SAYS_WHERE = /^Glossary page: http:\/\/\S+\/ {2}API reference: http:\/\/\S+\/docs/;

describe('the start message', () => {
  after(killLeftovers);

  test('names the page and /docs at the address it listens on, and both answer', async () => {
    const db = `sqlite:${path.join(tempDir(), 'g.db')}`;
    const server = await startServer({ DATABASE_URL: db });
    try {
      const line = await server.waitForLog((entry) => typeof entry.page === 'string');
      const port = new URL(server.url).port;
      assert.equal(line.page, `http://127.0.0.1:${port}/`);
      assert.equal(line.docs, `http://127.0.0.1:${port}/docs`);
      assert.match(String(line.msg), SAYS_WHERE);
      assert.equal(line.level, 30);
      const ready = server.logs.findIndex((entry) => entry.msg === 'ready');
      assert.ok(ready >= 0 && ready < server.logs.indexOf(line), 'said after ready');
      const page = await fetch(String(line.page));
      assert.equal(page.status, 200);
      assert.match(String(page.headers.get('content-type')), /text\/html/);
      const docs = await fetch(String(line.docs));
      assert.equal(docs.status, 200);
      assert.match(await docs.text(), /swagger-ui/);
      assert.equal(server.stderr(), '', 'nothing on stderr: the logs stay JSON on stdout');
    } finally {
      await server.stop();
    }
  });

  test('with HOST=0.0.0.0 and two workers: a browsable address and this machine by name, once', async () => {
    const db = `sqlite:${path.join(tempDir(), 'g.db')}`;
    const server = await startService({ DATABASE_URL: db, HOST: '0.0.0.0', WORKERS: '2' });
    try {
      const line = await server.waitForLog((entry) => typeof entry.page === 'string');
      const port = new URL(server.url).port;
      assert.equal(line.page, `http://127.0.0.1:${port}/`);
      assert.equal(line.elsewhere, `http://${os.hostname()}:${port}/`);
      assert.match(
        String(line.msg),
        new RegExp(
          `\\(HOST=0\\.0\\.0\\.0: from another machine, http://${os.hostname()}:${port}/\\)$`,
        ),
      );
      assert.equal((await fetch(String(line.page))).status, 200);
      assert.equal(server.logs.filter((entry) => typeof entry.page === 'string').length, 1);
    } finally {
      await server.stop();
    }
  });

  test('every kind of HOST gives an address a browser can open', () => {
    const table: [string, string, string | undefined][] = [
      ['127.0.0.1', 'http://127.0.0.1:8000/', undefined],
      ['localhost', 'http://localhost:8000/', undefined],
      ['0.0.0.0', 'http://127.0.0.1:8000/', 'http://box:8000/'],
      ['::', 'http://[::1]:8000/', 'http://box:8000/'],
      ['::1', 'http://[::1]:8000/', undefined],
      ['192.168.1.20', 'http://192.168.1.20:8000/', undefined],
    ];
    for (const [host, page, elsewhere] of table) {
      const addresses = startAddresses(host, 8000, 'box');
      assert.equal(addresses.page, page, host);
      assert.equal(addresses.docs, `${page}docs`, host);
      assert.equal(addresses.elsewhere, elsewhere, host);
    }
  });
});
