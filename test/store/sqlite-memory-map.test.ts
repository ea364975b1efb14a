import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { anonymousChange } from '../../src/glossary/history.ts';
import type { Term } from '../../src/glossary/term.ts';
import { openSqlite } from '../../src/store/sqlite/driver.ts';
import { openFile } from '../../src/store/sqlite/open-file.ts';
import { SnapshotReaders } from '../../src/store/sqlite/snapshot-readers.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { listedIds, tempDir } from '../helpers/backends.ts';

const mapped = (db: { pragma(source: string, options: { simple: true }): unknown }) =>
  db.pragma('mmap_size', { simple: true });

function term(id: number): Term {
  return {
    id,
    term: `Mapped page ${id}`,
    definition: `A term stored in a page read through the map, number ${id}; ${'x'.repeat(300)}`,
    category: 'backend',
    see_also: [],
  };
}

/** open-file.ts: each connection of the store reads the file through a memory map. */
describe('SQLite reads through a memory map', () => {
  test("the store's connection and its snapshot readers map the file (the driver allows it)", () => {
    const file = path.join(tempDir(), 'g.db');
    const { db } = openFile(file, { synchronous: 'full', busyTimeoutMs: 50 });
    const readers = new SnapshotReaders(file, 50, () => true);
    try {
      // A driver built with SQLITE_MAX_MMAP_SIZE=0 would answer 0 here, silently.
      assert.equal(mapped(db), 2 ** 30);
      const reader = readers.take();
      assert.equal(mapped(reader.db), 2 ** 30);
      readers.giveBack(reader);
    } finally {
      readers.close();
      db.close();
    }
  });

  test('a file grown by another process after the map was made is read whole, by id and listed', async () => {
    const file = path.join(tempDir(), 'g.db');
    const reading = openSqliteStore(file);
    const writing = openSqliteStore(file);
    try {
      assert.deepEqual(await reading.get(0), undefined); // the file is mapped, nearly empty
      // About 4 MB: far past the file's size when the reading store mapped it.
      const terms = Array.from({ length: 8000 }, (_, i) => term(i));
      for (let i = 0; i < terms.length; i += 1000) {
        await writing.importMany(terms.slice(i, i + 1000), anonymousChange());
      }
      // Copied back from the WAL into the file, where only the map reads it.
      const other = openSqlite(file);
      assert.equal(other.pragma('wal_checkpoint(TRUNCATE)', { simple: true }), 0);
      other.close();
      for (const id of [0, 1999, 4000, 7999]) assert.deepEqual(await reading.get(id), terms[id]);
      assert.deepEqual(
        await listedIds(reading, {}),
        terms.map((t) => t.id),
      );
    } finally {
      await writing.close();
      await reading.close();
    }
  });
});
