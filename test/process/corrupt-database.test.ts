import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { openSqlite } from '../../src/store/sqlite/driver.ts';
import { APPLICATION_ID, MIGRATIONS } from '../../src/store/sqlite/migrations.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { sampleTerm } from '../helpers/app.ts';
import { tempDir } from '../helpers/backends.ts';
import { runUntilExit, startServer } from '../helpers/server-process.ts';
import { setImmutable } from '../helpers/storage-faults.ts';

/**
 * A database file the service cannot trust stops the real server process at start: one line on
 * stderr, a non-zero exit, and the file left byte for byte as it was, with no sidecar files.
 */

const sha256 = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');
const folderListing = (file: string) => fs.readdirSync(path.dirname(file)).sort();

async function ourDatabase(terms = 300): Promise<string> {
  const file = path.join(tempDir(), 'glossary.db');
  const store = openSqliteStore(file);
  await store.importMany(Array.from({ length: terms }, (_, i) => sampleTerm(i) as never));
  await store.close();
  return file;
}

function foreignDatabase(journalMode: 'delete' | 'wal', applicationId = 0): string {
  const file = path.join(tempDir(), 'glossary.db');
  const db = openSqlite(file);
  db.pragma(`journal_mode = ${journalMode}`);
  db.exec('CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)');
  db.prepare('INSERT INTO invoices (total) VALUES (?)').run(12.5);
  db.pragma(`application_id = ${applicationId}`);
  db.close();
  return file;
}

async function assertRefused(file: string, reason: RegExp, sidecars = 'none'): Promise<void> {
  const before = { hash: sha256(file), listing: folderListing(file) };
  const exit = await runUntilExit({ DATABASE_URL: `sqlite:${file}` });
  assert.notEqual(exit.code, 0);
  assert.equal(exit.signal, null);
  const lines = exit.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line on stderr, got: ${exit.stderr}`);
  assert.match(lines[0] ?? '', /^glossary: cannot start: /);
  assert.match(lines[0] ?? '', reason);
  assert.equal(sha256(file), before.hash, 'the file is untouched');
  if (sidecars === 'none') {
    assert.deepEqual(folderListing(file), before.listing, 'no sidecar file is left behind');
  }
}

describe('corrupt or foreign database at start (sqlite)', () => {
  test('a file that is not a database is refused and left untouched', async () => {
    const file = path.join(tempDir(), 'glossary.db');
    fs.writeFileSync(file, 'id,term\n1,API\n'.repeat(1000));
    await assertRefused(file, /is not a database/);
  });

  test('a database with corrupt pages is refused and never repaired', async () => {
    const file = await ourDatabase();
    const bytes = fs.readFileSync(file);
    const pageSize = bytes.readUInt16BE(16);
    // Scribble over the second and third pages (b-tree pages of the schema).
    bytes.fill(0xa5, pageSize + 8, pageSize * 3);
    fs.writeFileSync(file, bytes);
    await assertRefused(file, /is corrupt/);
  });

  test('a database with a garbled header is refused', async () => {
    const file = await ourDatabase(10);
    const bytes = fs.readFileSync(file);
    bytes.fill(0xff, 16, 24);
    fs.writeFileSync(file, bytes);
    await assertRefused(file, /is corrupt/);
  });

  test("another application's database (rollback journal) is refused, its journal mode kept", async () => {
    const file = foreignDatabase('delete');
    await assertRefused(file, /of another application/);
  });

  test("another application's WAL database with its own application_id is refused", async () => {
    const file = foreignDatabase('wal', 0x12345678);
    await assertRefused(file, /belongs to another application/);
  });

  test('a schema version newer than this release is refused', async () => {
    const file = await ourDatabase(10);
    const db = openSqlite(file);
    db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    // Closed before the listing is taken: an open WAL connection keeps sidecar files that
    // would vanish whenever the garbage collector closed it.
    const check = openSqlite(file);
    assert.equal(check.pragma('application_id', { simple: true }), APPLICATION_ID);
    check.close();
    await assertRefused(file, /newer than this release knows/);
  });

  test('a read-only database file is refused, since the service could never write to it', async (t) => {
    const file = await ourDatabase(3);
    if (!setImmutable(t, [file], true)) return;
    try {
      await assertRefused(file, /is read-only/, 'may exist');
    } finally {
      setImmutable(t, [file], false);
    }
  });

  test('an intact database of ours starts and keeps its terms', async () => {
    const file = await ourDatabase(3);
    const server = await startServer({ DATABASE_URL: `sqlite:${file}` });
    try {
      const listed = await fetch(`${server.url}/terms`);
      assert.deepEqual(await listed.json(), [sampleTerm(0), sampleTerm(1), sampleTerm(2)]);
    } finally {
      await server.stop();
    }
  });
});
