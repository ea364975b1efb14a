import type Database from 'better-sqlite3';
import { typoCandidate, WordIndex } from '../../glossary/words.ts';
import { KEEP_REMOVALS_MS, PURGE_STEP } from '../vocabulary-removals.ts';

/**
 * The words of the glossary, on disk, following its content: a word leaves as soon as no live
 * term has it (migration 8).
 *
 * - `indexed_words` holds every word of a live term (read by read-statements.ts to turn a prefix
 *   into the words it begins, and to drop a query word no term has).
 * - `vocabulary` holds the words a typo may find, each with the number (`rev`) of the write
 *   that last added or removed it: the glossary's revision, which only grows. A word no live
 *   term has any more stays there for a while as a removal (`removed_at` set), so that every
 *   process learns of it: each keeps the words in memory (a `WordIndex`) and, before each
 *   look-up, takes what was numbered past what it has seen, additions and removals alike (one
 *   indexed read when nothing is new). Memory after a start holds only the live words.
 *
 * Creates and bulk imports, the hot paths, do what they always did: store the words not
 * stored yet. Only a write that takes words away from a term (an update, a removal, a restore
 * over a live term) looks, for each word the term no longer has, whether another live term has
 * it: one look-up in the words' FTS5 index, which holds every live term's words already (a
 * count kept per word would have cost every import its upkeep). The index's `ascii`
 * tokenizer folds ASCII capitals, which a word keeps in the rare case NFKD makes one (`ℌ` is
 * `H`): such a word may stay while a term has its lower-case twin, which is harmless (it finds
 * nothing). SQLite has one writer at a time across every process on the file (`BEGIN
 * IMMEDIATE`), and a write first takes what other processes wrote, so its memory and the disk
 * agree while it decides: no two writes can race over a word.
 *
 * Removals are purged when the store is quiet (upkeep.ts) once they are older than
 * `keepMs` (10 minutes by default). `vocabulary_state.purged` keeps the highest number purged:
 * a process that has not looked since (idle that long) reads the vocabulary afresh instead of
 * catching up, as after a start.
 */
export interface Vocabulary {
  similar(word: string, max: number): string[];
  /**
   * Inside a write transaction, after it advanced the revision and wrote its terms: stores
   * the words of the terms written (`now`), and takes out of the vocabulary those of the terms
   * replaced or removed (`before`) that no live term has any more.
   */
  record(now: Iterable<string>, revision: number, before?: Iterable<string>): void;
  /** One step of purging old removals, in a transaction of its own; whether more is left. */
  purge(now?: number): boolean;
}

interface Change {
  word: string | null;
  rev: number;
  removed: number | null;
}

export function createVocabulary(
  db: Database.Database,
  keepMs: number = KEEP_REMOVALS_MS,
): Vocabulary {
  let index = new WordIndex();
  let seen = -1;
  const latest = db
    .prepare<[], number>(
      `SELECT max(coalesce((SELECT max(rev) FROM vocabulary), -1),
                  (SELECT purged FROM vocabulary_state))`,
    )
    .pluck();
  const purged = db.prepare<[], number>('SELECT purged FROM vocabulary_state').pluck();
  const since = db.prepare<[number], Change>(
    'SELECT word, rev, removed_at AS removed FROM vocabulary WHERE rev > ?',
  );
  const live = db
    .prepare<[], string>('SELECT word FROM vocabulary WHERE removed_at IS NULL')
    .pluck();
  // Many words at once (a JSON array of text: words are letters and digits, words.ts).
  const add = db.prepare<[number, string]>(
    `INSERT INTO vocabulary (word, rev) SELECT value, ? FROM json_each(?) WHERE true
     ON CONFLICT (word) DO UPDATE SET rev = excluded.rev, removed_at = NULL
     WHERE removed_at IS NOT NULL`,
  );
  const remove = db.prepare<[number, number, string]>(
    'UPDATE vocabulary SET rev = ?, removed_at = ? WHERE word = ? AND removed_at IS NULL',
  );
  const addIndexed = db.prepare<[string]>(
    'INSERT OR IGNORE INTO indexed_words (word) SELECT value FROM json_each(?)',
  );
  const removeIndexed = db.prepare<[string]>('DELETE FROM indexed_words WHERE word = ?');
  // The words are letters and digits only (words.ts): quoted, the `ascii` tokenizer keeps each whole.
  const used = db
    .prepare<[string], number>('SELECT 1 FROM terms_words WHERE terms_words MATCH ? LIMIT 1')
    .pluck();
  const purgeStep = db
    .prepare<[number, number], number>(
      `DELETE FROM vocabulary WHERE word IN
         (SELECT word FROM vocabulary WHERE removed_at <= ? LIMIT ?)
       RETURNING rev`,
    )
    .pluck();
  const setPurged = db.prepare<[number]>('UPDATE vocabulary_state SET purged = max(purged, ?)');

  /** Reads every live word, as after a start. */
  const reload = () => {
    const fresh = new WordIndex();
    for (const word of live.iterate()) fresh.add(word);
    index = fresh;
    seen = latest.get() ?? -1;
  };
  /** Takes what other processes numbered past `seen`, in one read transaction. */
  const catchUp = db.transaction(() => {
    if (seen < 0 || (purged.get() ?? 0) > seen) {
      reload();
      return;
    }
    for (const { word, rev, removed } of since.iterate(seen)) {
      if (removed === null) index.add(word as string);
      else index.remove(word as string);
      if (rev > seen) seen = rev;
    }
  });
  const sync = () => {
    if ((latest.get() ?? -1) > seen) catchUp.deferred();
  };
  /**
   * Right after the turn of a write (committed or rolled back by then): takes its words, so
   * that the first look-up after a bulk import does not pay for filing all of them at once.
   */
  let soon: NodeJS.Immediate | undefined;
  const syncSoon = () => {
    if (soon) return;
    soon = setImmediate(() => {
      soon = undefined;
      try {
        if (db.open) sync();
      } catch {
        // Storage trouble: the next look-up catches up, or answers why it cannot.
      }
    }).unref();
  };

  const takePurge = db.transaction((before: number): boolean => {
    const revs = purgeStep.all(before, PURGE_STEP);
    if (revs.length > 0) setPurged.run(Math.max(...revs));
    return revs.length === PURGE_STEP;
  });

  return {
    similar(word, max) {
      sync();
      return index.similar(word, max);
    },
    record(now, revision, before = []) {
      sync();
      const words = new Set(now);
      if (words.size > 0) {
        // In order: each b-tree is then written along, not page by random page.
        const sorted = [...words].sort();
        addIndexed.run(JSON.stringify(sorted));
        const candidates = sorted.filter((word) => !index.has(word) && typoCandidate(word));
        if (candidates.length > 0) add.run(revision, JSON.stringify(candidates));
      }
      const at = Date.now();
      for (const word of new Set(before)) {
        if (words.has(word) || used.get(`"${word}"`) !== undefined) continue;
        removeIndexed.run(word);
        if (index.has(word)) remove.run(revision, at, word);
      }
      syncSoon();
      // Memory follows after this turn or at the next look-up, from what committed: a write
      // rolled back leaves it as it was. (Memory taking the write's own words at once used to
      // let a rolled-back write's words be skipped by later writes, which never stored them.)
    },
    purge(now = Date.now()) {
      return takePurge.immediate(now - keepMs);
    },
  };
}
