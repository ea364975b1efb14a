import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { backends, type Location, tempDir } from '../helpers/backends.ts';
import { killLeftovers, runServer, startServer } from '../helpers/server-process.ts';

/**
 * npm installs each better-sqlite3 build only under the Node.js lines its engines allow (13 on
 * 22 and later, 12 as `better-sqlite3-node20` on 20), so a checkout installed under one line
 * and started under another can lack the SQLite driver it needs. The built service says so in
 * one line; a PostgreSQL glossary, which needs no SQLite, starts all the same.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TIMEOUT = { timeout: 90_000 };

/** The built checkout with every installed package but the SQLite drivers. */
function checkoutWithoutDriver(): string {
  const copy = tempDir('glossary-no-driver-');
  fs.chmodSync(copy, 0o755);
  for (const entry of ['package.json', 'dist']) {
    fs.cpSync(path.join(ROOT, entry), path.join(copy, entry), { recursive: true });
  }
  fs.mkdirSync(path.join(copy, 'node_modules'));
  for (const name of fs.readdirSync(path.join(ROOT, 'node_modules'))) {
    if (name === 'better-sqlite3' || name === 'better-sqlite3-node20') continue;
    fs.symlinkSync(path.join(ROOT, 'node_modules', name), path.join(copy, 'node_modules', name));
  }
  return copy;
}

for (const backend of backends()) {
  describe(`The built service without an SQLite driver installed (${backend.name})`, () => {
    const copy = checkoutWithoutDriver();
    const launch = { file: process.execPath, args: ['dist/service/server.js'], cwd: copy };
    let location: Location | undefined;
    after(async () => {
      await killLeftovers();
      await location?.dispose();
      fs.rmSync(copy, { recursive: true, force: true });
    });

    if (backend.name === 'sqlite') {
      test('refuses to start in one line that says what to install', TIMEOUT, async () => {
        location = await backend.location();
        const server = runServer({ DATABASE_URL: location.url }, launch);
        assert.deepEqual(await server.exited, { code: 1, signal: null });
        const lines = server.stderr().trim().split('\n');
        assert.equal(lines.length, 1, server.stderr());
        assert.match(
          lines[0] ?? '',
          /^glossary: cannot start: .*the SQLite driver for Node\.js [\d.]+ \(better-sqlite3(-node20)?\) .*run npm ci under this Node\.js/,
        );
      });
    } else {
      test('serves the glossary all the same', TIMEOUT, async () => {
        location = await backend.location();
        const server = await startServer({ DATABASE_URL: location.url }, launch);
        const created = await fetch(`${server.url}/terms`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            id: 1,
            term: 'Driver',
            definition: 'Loaded.',
            category: 'devops',
          }),
        });
        assert.equal(created.status, 201);
        assert.deepEqual(await server.stop('SIGTERM'), { code: 0, signal: null });
      });
    }
  });
}
