import type Database from 'better-sqlite3';
import { typoCandidate, WordIndex } from '../../glossary/words.ts';

/**
 * The words of the glossary, on disk. `indexed_words` holds every word ever indexed (read by
 * sqlite-reads.ts to turn a prefix into the words it begins); `vocabulary` the words a typo
 * may find, each with the revision that first stored it, also kept in this process's memory:
 * before each look-up the memory takes what other processes stored since it last looked (one
 * indexed read when nothing is new). Words are only ever added: one that no live term has any
 * more finds nothing, which keeps answers exact.
 */
export interface Vocabulary {
  similar(word: string, max: number): string[];
  /** Inside a write transaction, after it advanced the revision: stores the new words. */
  record(words: Iterable<string>, revision: number): void;
}

export function createVocabulary(db: Database.Database): Vocabulary {
  const index = new WordIndex();
  let seen = -1;
  const latest = db.prepare<[], number | null>('SELECT max(rev) FROM vocabulary').pluck();
  const since = db.prepare<[number], string>('SELECT word FROM vocabulary WHERE rev > ?').pluck();
  const insert = db.prepare<[string, number]>(
    'INSERT OR IGNORE INTO vocabulary (word, rev) VALUES (?, ?)',
  );
  const insertIndexed = db.prepare<[string]>(
    'INSERT OR IGNORE INTO indexed_words (word) VALUES (?)',
  );
  const sync = () => {
    const max = latest.get() ?? -1;
    if (max <= seen) return;
    for (const word of since.all(seen)) index.add(word);
    seen = max;
  };
  return {
    similar(word, max) {
      sync();
      return index.similar(word, max);
    },
    record(words, revision) {
      sync();
      for (const word of words) {
        insertIndexed.run(word);
        if (index.has(word) || !typoCandidate(word)) continue;
        insert.run(word, revision);
        // Known here at once; if the transaction rolls back, a word too many finds nothing.
        index.add(word);
      }
    },
  };
}
