import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { TermFilter } from '../../src/glossary/filters.ts';
import { anonymousChange } from '../../src/glossary/history.ts';
import type { Term } from '../../src/glossary/term.ts';
import type { TermStore } from '../../src/glossary/term-store.ts';
import { openSqlite } from '../../src/store/sqlite/driver.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import type { IndexUpkeepOptions } from '../../src/store/sqlite/upkeep.ts';
import { listedIds, tempDir } from '../helpers/backends.ts';
import { eventually } from '../helpers/eventually.ts';
import { manualTimers } from '../helpers/manual-timers.ts';

const WORDS = ['cache', 'queue', 'router', 'kernel', 'schema', 'index', 'render', 'deploy'];

function term(id: number): Term {
  const a = WORDS[id % WORDS.length] as string;
  const b = WORDS[Math.floor(id / WORDS.length) % WORDS.length] as string;
  return {
    id,
    term: `${a} ${b} ${id}`,
    definition: `How a ${b} reaches its ${a}, case ${id}.`,
    category: 'backend',
    see_also: [],
  };
}

/** Several imports, each its own transaction, each adding a segment to both indexes. */
async function importInBatches(store: TermStore, batches: number, size: number): Promise<void> {
  for (let batch = 0; batch < batches; batch += 1) {
    const terms = Array.from({ length: size }, (_, i) => term(batch * size + i));
    await store.importMany(terms);
  }
}

/** Whether FTS5 finds nothing to merge in either index (asked in a transaction rolled back). */
function fullyMerged(file: string): boolean {
  const db = openSqlite(file);
  try {
    const changes = db.prepare<[], number>('SELECT total_changes()').pluck();
    db.exec('BEGIN IMMEDIATE');
    try {
      return ['terms_fts', 'terms_words'].every((index) => {
        const before = changes.get() ?? 0;
        db.prepare(`INSERT INTO ${index} (${index}, rank) VALUES ('merge', -1)`).run();
        return (changes.get() ?? 0) - before < 2;
      });
    } finally {
      db.exec('ROLLBACK');
    }
  } finally {
    db.close();
  }
}

function written(file: string): number {
  const db = openSqlite(file, { readonly: true });
  try {
    return (
      db
        .prepare<[], number>(
          'SELECT g.revision - u.merged_revision FROM glossary_state g, index_upkeep u',
        )
        .pluck()
        .get() ?? -1
    );
  } finally {
    db.close();
  }
}

/**
 * The WAL's state, from its wal-index (the `-shm` file; SQLite's "WAL-mode file format"):
 * `mxFrame`, the frames in the WAL, is a 32-bit word at byte 16 of the header, and
 * `nBackfill`, how many of them a checkpoint has copied into the database, at byte 96.
 */
interface WalState {
  frames: number;
  copied: number;
}

function walState(file: string): WalState {
  const shm = fs.readFileSync(`${file}-shm`);
  const word = (at: number) =>
    os.endianness() === 'LE' ? shm.readUInt32LE(at) : shm.readUInt32BE(at);
  return { frames: word(16), copied: word(96) };
}

const QUESTIONS: TermFilter[] = [
  { search: 'ache' },
  { search: '1' },
  { text: { words: { has: { in: 'any', words: ['router'] } } } },
  { text: { words: { has: { in: 'name', words: [], prefix: 'ke' } } } },
  {
    text: {
      words: {
        all: [{ has: { in: 'any', words: ['cache'] } }, { has: { in: 'any', words: ['8'] } }],
      },
    },
  },
];

const answers = (store: TermStore) => Promise.all(QUESTIONS.map((q) => listedIds(store, q)));

function open(file: string, indexUpkeep: IndexUpkeepOptions): TermStore {
  return openSqliteStore(file, { indexUpkeep });
}

describe('SQLite index upkeep', () => {
  test('once a tenth of the glossary was indexed since the last merge, a quiet store merges both indexes, a step at a time, and every answer stays the same', async () => {
    const file = path.join(tempDir(), 'glossary.db');
    const store = open(file, { idleMs: 20, minTerms: 1, pages: 2 });
    try {
      // Imported back to back: each import restarts the wait, so none merges in between.
      await importInBatches(store, 6, 100);
      assert.equal(fullyMerged(file), false, 'six imports leave several segments');
      const before = await answers(store);
      assert.ok(before.every((ids) => ids.length > 0));
      await eventually(() => written(file) === 0, 'the merge completed');
      assert.equal(fullyMerged(file), true);
      assert.deepEqual(await answers(store), before);
      assert.equal(await store.count({ search: 'ache' }), before[0]?.length);
    } finally {
      await store.close();
    }
  });

  test("writes leave the WAL to grow past SQLite's 1,000 pages; a quiet store copies it all back", async () => {
    const file = path.join(tempDir(), 'glossary.db');
    const store = open(file, { idleMs: 60_000 });
    try {
      await importInBatches(store, 30, 100);
      for (let id = 3000; id < 3100; id += 1) await store.create(term(id), anonymousChange());
      const written = walState(file);
      assert.ok(written.frames > 1000, `the WAL holds ${written.frames} frames`);
      assert.equal(written.copied, 0, 'and no checkpoint copied any');
    } finally {
      await store.close();
    }
    const quiet = open(file, { idleMs: 10, minTerms: 1_000_000 });
    try {
      await quiet.create(term(4000), anonymousChange());
      await eventually(() => {
        const { frames, copied } = walState(file);
        return frames > 0 && copied === frames;
      }, 'the WAL is copied back');
    } finally {
      await quiet.close();
    }
  });

  test('the quiet checkpoint runs on a thread of its own: it copies the WAL back while this one is blocked', async () => {
    const file = path.join(tempDir(), 'glossary.db');
    const store = open(file, { idleMs: 10, minTerms: 1_000_000 });
    try {
      await store.create(term(1), anonymousChange());
      // The store's quiet moment was set (10 ms) when that write committed, just before this
      // timer: this callback runs right after the store's. A checkpoint made on this thread
      // would be complete by now; a thread of its own takes milliseconds to start.
      const seen = await new Promise<{ first: WalState; last: WalState }>((resolve) =>
        setTimeout(() => {
          const first = walState(file);
          // From here this thread never yields to its event loop until the WAL is copied back.
          const blocked = new Int32Array(new SharedArrayBuffer(4));
          const deadline = Date.now() + 10_000;
          let last = first;
          while (last.copied < last.frames && Date.now() < deadline) {
            Atomics.wait(blocked, 0, 0, 5);
            last = walState(file);
          }
          resolve({ first, last });
        }, 10),
      );
      assert.ok(seen.first.frames > 0);
      assert.equal(seen.first.copied, 0, 'not copied on this thread when the store went quiet');
      assert.equal(seen.last.copied, seen.last.frames, 'copied while this thread was blocked');
    } finally {
      await store.close();
    }
  });

  test('a checkpoint that cannot be made is told through warn, and the store goes on', async () => {
    const file = path.join(tempDir(), 'glossary.db');
    const told: { message: string; error: unknown }[] = [];
    const store = openSqliteStore(file, {
      indexUpkeep: { idleMs: 10, minTerms: 1_000_000 },
      warn: (message, error) => told.push({ message, error }),
    });
    try {
      await store.create(term(1), anonymousChange());
      // The file is gone from its folder (the store keeps its open descriptor): a connection
      // of the checkpoint's own cannot open it.
      fs.rmSync(file);
      await eventually(() => told.length > 0, 'the failure is told');
      assert.match(told[0]?.message ?? '', /could not copy the WAL back/);
      assert.match(
        String((told[0]?.error as Error | undefined)?.message),
        /SQLITE_CANTOPEN: unable to open/,
      );
      assert.equal((await store.get(1))?.term, term(1).term);
    } finally {
      await store.close();
    }
  });

  test('below the threshold nothing is merged, and the count of indexed terms adds up', async () => {
    const file = path.join(tempDir(), 'glossary.db');
    const timers = manualTimers();
    const store = open(file, { idleMs: 10, minTerms: 10_000, timers });
    try {
      await importInBatches(store, 5, 100);
      await store.update(3, (t) => ({ ...t, definition: 'Changed.' }), anonymousChange());
      await store.remove(4, () => undefined, anonymousChange());
      assert.equal(timers.pending(), 1, 'the store waits for quiet');
      // The store has been quiet for its idleMs: its upkeep runs now, and finds nothing due.
      timers.elapse();
      assert.equal(written(file), 502);
      assert.equal(fullyMerged(file), false);
    } finally {
      await store.close();
    }
  });

  test('the count survives a restart: a store opened on an unmerged file merges it once quiet, with no write', async () => {
    const file = path.join(tempDir(), 'glossary.db');
    const first = open(file, { minTerms: 1_000_000 });
    const before = await (async () => {
      try {
        await importInBatches(first, 6, 100);
        return await answers(first);
      } finally {
        await first.close();
      }
    })();
    assert.equal(written(file), 600);
    const second = open(file, { idleMs: 10, minTerms: 1 });
    try {
      await eventually(() => written(file) === 0, 'the merge completed');
      assert.equal(fullyMerged(file), true);
      assert.deepEqual(await answers(second), before);
    } finally {
      await second.close();
    }
  });
});
