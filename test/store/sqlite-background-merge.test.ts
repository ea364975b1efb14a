import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { TermFilter } from '../../src/glossary/filters.ts';
import { anonymousChange } from '../../src/glossary/history.ts';
import type { Term } from '../../src/glossary/term.ts';
import type { TermStore } from '../../src/glossary/term-store.ts';
import { openSqlite } from '../../src/store/sqlite/driver.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { listedIds, tempDir } from '../helpers/backends.ts';
import { eventually } from '../helpers/eventually.ts';

/**
 * The quiet merges of the FTS5 indexes run on a thread and a connection of their own
 * (background-merge.ts): they go on while the store's thread is busy, searches during and
 * after them answer exactly as before, and a write during one is stored and pauses it.
 */

const WORDS = ['cache', 'queue', 'router', 'kernel', 'schema', 'index', 'render', 'deploy'];

function term(id: number): Term {
  const a = WORDS[id % WORDS.length] as string;
  const b = WORDS[Math.floor(id / WORDS.length) % WORDS.length] as string;
  const hex = ((id * 40503) & 0xffff).toString(16).padStart(4, '0');
  return {
    id,
    term: `${a} ${b} ${hex} ${id}`,
    definition: `How a ${b} reaches its ${a}, case ${id}.`,
    category: 'backend',
    see_also: [],
  };
}

async function importInBatches(store: TermStore, batches: number, size: number): Promise<void> {
  for (let batch = 0; batch < batches; batch += 1) {
    await store.importMany(Array.from({ length: size }, (_, i) => term(batch * size + i + 1)));
  }
}

/** The glossary's revision and the one the last merge recorded, on a connection of its own. */
function revisions(file: string): { revision: number; merged: number } {
  const db = openSqlite(file, { readonly: true });
  try {
    const sql =
      'SELECT g.revision, u.merged_revision AS merged FROM glossary_state g, index_upkeep u';
    return (
      db.prepare<[], { revision: number; merged: number }>(sql).get() ?? { revision: 0, merged: 0 }
    );
  } finally {
    db.close();
  }
}

/** Terms indexed since the last merge (0 once merged). */
function unmerged(file: string): number {
  const { revision, merged } = revisions(file);
  return revision - merged;
}

const QUESTIONS: TermFilter[] = [
  { search: 'ache' },
  { text: { words: { has: { in: 'any', words: ['router'] } } } },
  { text: { words: { has: { in: 'name', words: [], prefix: 'ke' } } } },
  { text: { words: { has: { in: 'any', words: ['cahce', 'cache'] } } } },
];

const answers = (store: TermStore) => Promise.all(QUESTIONS.map((q) => listedIds(store, q)));

describe('SQLite index merges on a thread of their own', () => {
  test('the indexes are merged while the store’s thread is blocked', async () => {
    const file = path.join(tempDir(), 'glossary.db');
    const store = openSqliteStore(file, { indexUpkeep: { idleMs: 10, minTerms: 1, pages: 4 } });
    try {
      await importInBatches(store, 6, 200);
      assert.ok(unmerged(file) > 0);
      // The store went quiet 10 ms after the last import, just before this timer: from here
      // this thread never yields to its event loop until the merge is recorded.
      const merged = await new Promise<boolean>((resolve) =>
        setTimeout(() => {
          const blocked = new Int32Array(new SharedArrayBuffer(4));
          const deadline = Date.now() + 20_000;
          while (unmerged(file) !== 0 && Date.now() < deadline) Atomics.wait(blocked, 0, 0, 5);
          resolve(unmerged(file) === 0);
        }, 10),
      );
      assert.equal(merged, true, 'merged while this thread was blocked');
    } finally {
      await store.close();
    }
  });

  test('searches during and after a merge answer exactly; a write during one is stored, and the merge completes after it', async () => {
    const file = path.join(tempDir(), 'glossary.db');
    const store = openSqliteStore(file, { indexUpkeep: { idleMs: 10, minTerms: 1, pages: 4 } });
    try {
      await importInBatches(store, 8, 250);
      const before = await answers(store);
      assert.ok(before.every((ids) => ids.length > 0));
      // Asked again and again while the merge goes on, in steps of four pages.
      let during = 0;
      await eventually(async () => {
        assert.deepEqual(await answers(store), before);
        during += 1;
        return during >= 5;
      }, 'searches during the merge');
      const { revision } = revisions(file);
      const written = term(5000);
      await store.create(written, anonymousChange());
      assert.deepEqual(await store.get(5000), written);
      // Everything before the write merged (the write's own term alone stays below the
      // threshold when the merge had ended before it), in small steps on a busy machine.
      await eventually(() => revisions(file).merged >= revision, 'the merge completed', {
        withinMs: 60_000,
      });
      const after = await answers(store);
      assert.deepEqual(
        after.map((ids) => ids.filter((id) => id !== 5000)),
        before,
      );
      assert.ok(after[0]?.includes(5000), 'the term written during the merge is found');
      assert.deepEqual(await store.get(5000), written);
    } finally {
      await store.close();
    }
    const again = openSqliteStore(file);
    try {
      assert.deepEqual(await again.get(5000), term(5000), 'and stored for good');
    } finally {
      await again.close();
    }
  });
});
