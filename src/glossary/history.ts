import type { Term } from './term.ts';

/**
 * Who makes a change and when: recorded in the history with it. Where a write method leaves it
 * optional, the default is nobody (writes open).
 */
export interface Change {
  /** The token's name, or null while writes need none. */
  by: string | null;
  /**
   * Milliseconds since the epoch. Left out (as the service leaves it), the store reads its
   * clock inside the write transaction, once the term is locked, and never records an edit
   * earlier than the entry before it in the id's history: as its revisions grow, a term's
   * history never goes back in time, however the writers raced. Given, it is recorded as is
   * (upgrades and tests that need a known time).
   */
  at?: number | undefined;
}

/** The change a write method records when it is given none. */
export function anonymousChange(): Change {
  return { by: null };
}

export type HistoryAction = 'created' | 'updated' | 'deleted' | 'restored';

export interface HistoryEntry {
  /** Glossary-wide, only growing; numbers the entry within the id's history. */
  revision: number;
  action: HistoryAction;
  /** Milliseconds since the epoch. */
  at: number;
  by: string | null;
  /** The state after the change; for `deleted`, the state deleted. */
  term: Term;
}

/** Which entries of an id's history to read: newest first, `offset` skipped, `limit` kept. */
export interface HistoryPage {
  limit: number;
  offset?: number | undefined;
  /** Only the entries older than this revision (a cursor: the last revision already seen). */
  before?: number | undefined;
}

export interface HistorySlice {
  entries: HistoryEntry[];
  /** How many entries the history holds in all (older than `before`, when given). */
  total: number;
}
