import type pg from 'pg';
import { typoCandidate, WordIndex } from '../../glossary/words.ts';

/** Transaction advisory lock taken by a write that stores new words ("GLOSVOCA"). */
const VOCABULARY_LOCK = 0x474c4f53564f4341n;

/**
 * The words a typo may find, on disk (`vocabulary`, each with a number that only grows) and in
 * this process's memory, as in the SQLite store. A transaction that stores new words takes an
 * advisory lock first and numbers them past the highest number, so the numbers are committed in
 * the order they grow: a process that has seen number N has seen every word numbered below.
 * Before each look-up the store reads the newest number (with the glossary's revision, one
 * statement a turn for all who asked); only when it is past what this process has seen does
 * the memory take what was stored since (one indexed read).
 */
export interface Vocabulary {
  /** Whether a word numbered `latest` is one this process has not taken yet. */
  behind(latest: number): boolean;
  /** Takes what other processes stored since this one last looked. */
  sync(client: pg.ClientBase): Promise<void>;
  /** The words at most `max` edits from `word`, as of the last `sync` (or `record`). */
  similar(word: string, max: number): string[];
  /** Inside a write transaction: stores the words not stored yet. */
  record(client: pg.ClientBase, words: Iterable<string>): Promise<void>;
}

export function createVocabulary(): Vocabulary {
  const index = new WordIndex();
  let seen = -1;
  const sync = async (client: pg.ClientBase) => {
    const { rows } = await client.query<{ max: number | null }>({
      name: 'vocabulary-latest',
      text: 'SELECT max(rev) AS max FROM vocabulary',
    });
    const max = rows[0]?.max ?? -1;
    if (max <= seen) return;
    const fresh = await client.query<{ word: string }>(
      'SELECT word FROM vocabulary WHERE rev > $1',
      [seen],
    );
    for (const { word } of fresh.rows) index.add(word);
    seen = max;
  };
  return {
    behind: (latest) => latest > seen,
    sync,
    similar: (word, max) => index.similar(word, max),
    async record(client, words) {
      await sync(client);
      const fresh = [...words].filter((word) => !index.has(word) && typoCandidate(word));
      if (fresh.length === 0) return;
      await client.query('SELECT pg_advisory_xact_lock($1)', [VOCABULARY_LOCK.toString()]);
      await client.query(
        `INSERT INTO vocabulary (word, rev)
         SELECT word, (SELECT coalesce(max(rev), 0) + 1 FROM vocabulary) FROM unnest($1::text[]) word
         ON CONFLICT (word) DO NOTHING`,
        [fresh],
      );
      // Known here at once; if the transaction rolls back, a word too many finds nothing.
      for (const word of fresh) index.add(word);
    },
  };
}
