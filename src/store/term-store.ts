import type { Category, SortKey, Term } from '../glossary/term.ts';

/**
 * The storage the service owns. Routes speak only to this interface; each backend lives in its
 * own folder and is chosen once, at start-up, from DATABASE_URL.
 *
 * Every backend keeps these promises:
 * - terms come back in creation order (bulk items in request order), stable across restarts;
 * - `get` of an id registered more than once answers the earliest;
 * - `search` is a case-insensitive (Unicode case folding) literal substring of the term name;
 * - a write resolves only once it is durable, and `importMany` is one transaction;
 * - failures of the storage itself reject with `StoreUnavailableError`.
 */
export interface TermFilter {
  category?: Category | undefined;
  /** Already non-empty; the store folds it with `foldCase`. */
  search?: string | undefined;
}

export interface ListOptions {
  /** Creation order when absent. */
  sort?: SortKey | undefined;
  /** Skip this many matching terms first. */
  offset?: number | undefined;
  /** Return at most this many terms. */
  limit?: number | undefined;
}

/** What `importMany` did with each term, in order. */
export type ImportOutcome = 'created' | 'exists';

export interface TermStore {
  readonly backend: string;
  get(id: number): Promise<Term | undefined>;
  /** The matching terms, in chunks, read lazily so a large list streams. */
  list(filter: TermFilter, options?: ListOptions): AsyncIterable<Term[]>;
  /** How many terms match. */
  count(filter: TermFilter): Promise<number>;
  /**
   * A value that changes whenever the glossary changes (terms are only ever added, so the
   * latest creation sequence number will do); the basis of ETags.
   */
  revision(): Promise<number>;
  /** Stores the term even when its id exists already (the contract of POST /terms). */
  create(term: Term): Promise<void>;
  /**
   * Stores, in one transaction, each term whose id is not stored yet and reports which ones
   * already existed. The caller guarantees that the ids are distinct. No other writer can slip
   * the same id in between the check and the insert.
   */
  importMany(terms: readonly Term[]): Promise<ImportOutcome[]>;
  /** Resolves when the storage answers; rejects with `StoreUnavailableError` otherwise. */
  check(): Promise<void>;
  close(): Promise<void>;
}
