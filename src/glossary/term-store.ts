import type { ChangeFeed } from './changes.ts';
import type { ListOptions, TermFilter, TextFilter } from './filters.ts';
import type { Change, HistoryPage, HistorySlice } from './history.ts';
import type { NameConflictError } from './other-names.ts';
import type { Term } from './term.ts';
import type { FoundToken, StoredToken, TokenInfo } from './tokens.ts';
import type { WebhookStore } from './webhooks.ts';

/**
 * A `q`'s ranking (word-search.ts makes it). Its `levels`, best first, never overlap (no term
 * satisfies two), and together they find exactly what `matches` finds: a backend may read
 * those once and tell each term's level with text-match.ts. `name` stands for the levels: two
 * rankings with the same name have the same levels and matches, so a backend keys what it
 * keeps for a ranking by its name (a few dozen characters), not by the levels' JSON (11 kB
 * for two words one of which may be a typo, made and hashed at each request).
 */
export interface Ranking {
  readonly levels: readonly TextFilter[];
  readonly matches: TextFilter;
  readonly name: string;
}

/**
 * The storage the glossary needs, owned by the glossary. Its use cases (and the HTTP layer
 * above them) speak only to this interface; each backend lives in its own folder under
 * src/store/ and is chosen once, at start-up.
 *
 * The rules every backend keeps (the contract suite in test/store/store-contract.test.ts holds each
 * backend to them):
 *
 * 1. Order. Terms come back in creation order (bulk items in request order), stable across
 *    restarts. An update keeps a term's place; a term restored after its deletion gets its old
 *    place back.
 * 2. Identity. `get` of an id registered more than once answers the earliest live term with
 *    that id; `update`, `remove` and `restore` act on that same term. Once it is removed, the
 *    next one (if any) takes its place, and an id with no live term is free for `importMany`.
 * 3. Revision. Every write transaction that changes the glossary (create, importMany that
 *    created something, update, remove, restore) advances `revision()` inside that same
 *    transaction, so once a write is acknowledged every reader in every process sees the new
 *    revision together with the new state, never one without the other. Anything cached or
 *    tagged from the store (counts, search plans, ETags) is valid exactly while the revision
 *    it was taken at is current. Nothing may assume that terms are only added.
 * 4. History. Every change is recorded in the same transaction as the change itself, as a
 *    history entry numbered by a glossary-wide revision number that only grows; nothing is
 *    ever lost: a removed term stays in its history and can be restored from it.
 * 5. Durability. A write resolves only once it is durable (it survives a crash and, by
 *    default, a power loss), and each write method is one transaction: all of it or nothing.
 * 6. Search. `search` is a case-insensitive (Unicode case folding) literal substring of the
 *    term name, and `text` a condition on the words of name and definition (words.ts), over
 *    the current state of every term.
 * 7. Failures of the storage itself reject with `StoreUnavailableError`; an error thrown by a
 *    callback given to a write method rolls that write back and rejects with that same error.
 * 8. Other names (other-names.ts). A term's `aliases` and `avoid` are stored and answered with
 *    it (history and restore included), present only when non-empty. Across the live terms,
 *    no name to avoid equals (by `nameFold`) another term's name or alias: a write that would
 *    break this (create, an item of importMany, update, restore) is refused with
 *    `NameConflictError` naming the first of its names that conflicts and the live term it
 *    conflicts with, checked inside the write's own transaction, so that two concurrent writes,
 *    in one process or several, can never both get in. A term is never in conflict with itself.
 * 9. Changes. The history of every id, in one line, is the change feed (changes.ts, with its
 *    rules); webhook endpoints and their progress are kept with the terms (webhooks.ts).
 */
export interface TermStore extends AccessStore, ChangeFeed, WebhookStore {
  readonly backend: string;
  get(id: number): Promise<Term | undefined>;
  /**
   * The matching terms, in chunks, read lazily so a large list streams. A list longer than one
   * chunk is read from one snapshot: a write committed meanwhile shows in none of it.
   */
  list(filter: TermFilter, options?: ListOptions): AsyncIterable<Term[]>;
  /**
   * How many terms match; given `atMost`, that many at most (`min(count, atMost)`): counting
   * stops there, so finding whether a page starts beyond a large filter's terms is cheap.
   */
  count(filter: TermFilter, atMost?: number): Promise<number>;
  /**
   * A backend's own shortcut for a ranking (ranking.ts reads one level by level with `count`
   * and `list` otherwise): the page `page` asks for of the terms matching `filter` and one of
   * the ranking's levels, best level first, creation order within a level, when the backend
   * can rank all the matches at once; undefined when there are too many, and the ranking is
   * read level by level. (An optional operation: each is listed in store/opening-store.ts's
   * OPTIONAL.)
   */
  rankAtOnce?(
    filter: TermFilter,
    ranking: Ranking,
    page: Pick<ListOptions, 'limit' | 'offset'>,
  ): Promise<AsyncIterable<Term[]> | undefined>;
  /**
   * A backend's own shortcut for a ranking's first page: the first `limit` terms of the
   * ranking (as `rankAtOnce` orders them: best level first, creation order within a level), in
   * one read of all the levels, or kept from an earlier read while no write since can have
   * changed it; undefined when the backend reads this page otherwise.
   */
  firstOfLevels?(filter: TermFilter, ranking: Ranking, limit: number): Promise<Term[] | undefined>;
  /**
   * The words of the live terms (as words.ts makes them, those `typoCandidate` accepts) within
   * `max` edits of `word`, not counting `word` itself. Exact under every write, in every
   * process and after a restart: once a write is acknowledged, the next call answers the words
   * it stored, and no longer answers a word no live term has any more (its last term changed
   * or was removed). So what a store keeps for this follows the glossary's content, not every
   * word ever written.
   */
  similarWords(word: string, max: number): Promise<string[]>;
  /**
   * What `importMany` would answer for each of these terms now, rule 8 included, without
   * storing anything (an import's dry run). The caller guarantees that the ids are distinct.
   */
  previewImport(terms: readonly Term[]): Promise<ImportOutcome[]>;
  /** Changes with every committed change of the glossary (rule 3); opaque. */
  revision(): Promise<string>;
  /**
   * Stores the term even when its id exists already (the contract of POST /terms); rejects
   * with `NameConflictError` under rule 8.
   */
  create(term: Term, change?: Change): Promise<void>;
  /**
   * Stores, in one transaction, each term whose id has no live term yet and reports which
   * ones already existed, and which were refused by rule 8 (checked against the live terms and
   * the items stored before it in this call). The caller guarantees that the ids are
   * distinct. No other writer, in this process or any other, can slip the same id in between
   * the check and the insert.
   */
  importMany(terms: readonly Term[], change?: Change): Promise<ImportOutcome[]>;
  /**
   * Replaces the term `get(id)` answers with what `edit` makes of it, keeping its place, in
   * one transaction in which no other writer can change that term. `edit` sees the current
   * state; it may throw to refuse (the write is then rolled back). Resolves undefined when no
   * live term has the id.
   */
  update(id: number, edit: (current: Term) => Term, change: Change): Promise<Term | undefined>;
  /**
   * Removes the term `get(id)` answers, after `confirm` has seen it (it may throw to refuse).
   * Resolves with the removed term, or undefined when no live term has the id.
   */
  remove(id: number, confirm: (current: Term) => void, change: Change): Promise<Term | undefined>;
  /**
   * One page of the id's history, newest first, read from one snapshot: at most `page.limit`
   * entries, so a term changed a million times costs a reader no more than one changed once.
   * Undefined when the id never existed.
   */
  history(id: number, page: HistoryPage): Promise<HistorySlice | undefined>;
  /**
   * Brings back the state of history entry `revision` of the id: the live term takes that
   * state, or, when none is live, the term is re-created at its old place. `confirm` sees the
   * live term (undefined when there is none) and may throw to refuse. Resolves with the
   * restored term, `'no-such-revision'` when the id's history has no such entry, or undefined
   * when the id never existed. Reads that one entry, not the history: a write transaction
   * holds other writers, so it stays as short on a term changed a million times as on one
   * changed once.
   */
  restore(
    id: number,
    revision: number,
    confirm: (current: Term | undefined) => void,
    change: Change,
  ): Promise<Term | 'no-such-revision' | undefined>;
  /**
   * What the warnings of a write need (write-warnings.ts), read after it through indexes: the
   * ids of `term.see_also` that no live term has (each once, in order), and the live terms
   * whose name or an alias is `term.term` (by `nameFold`, as rule 8 compares names), those
   * with `term.id` left out.
   */
  writeNotes(term: Pick<Term, 'id' | 'term' | 'see_also'>, atMost: number): Promise<WriteNotes>;
  /**
   * The live terms whose `see_also` holds `id` when no live term has that id (their links now
   * lead nowhere, as after a DELETE); none while one has it.
   */
  danglingLinks(id: number, atMost: number): Promise<SomeTerms>;
  /** Resolves when the storage answers; rejects with `StoreUnavailableError` otherwise. */
  check(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Write tokens, kept next to the terms so that every process and instance sees a new or
 * revoked token at once. Only a hash of a token's secret is stored.
 */
export interface AccessStore {
  addToken(token: StoredToken): Promise<'added' | 'name-taken'>;
  /** Every token, by name; without their hashes. */
  listTokens(): Promise<TokenInfo[]>;
  /** Removes the token; false when no token has that name. */
  revokeToken(name: string): Promise<boolean>;
  /**
   * The token with this lookup key, hash included; when no token has it, a decoy: `found`
   * false, the lookup key asked, an empty name, kind `read-only`, time 0, a hash of 32 zero
   * bytes. One statement answers one row either way, so a miss costs what a hit does and the
   * time of a refusal does not tell whether a lookup key exists.
   */
  findToken(lookup: string): Promise<FoundToken>;
  /** Whether any token exists (writes are open while none does). */
  hasTokens(): Promise<boolean>;
}

/**
 * How a store tells of a failure it works around and that no request sees (the caller logs it):
 * a store never imports the service's logger.
 */
export type Warn = (message: string, error: unknown) => void;

/** What `importMany` did with each term, in order: stored, refused (id taken), or refused by rule 8. */
export type ImportOutcome = 'created' | 'exists' | NameConflictError;

/** Some terms: the ids of the first `atMost` asked for, in creation order, and how many in all. */
export interface SomeTerms {
  ids: number[];
  total: number;
}

/** What `writeNotes` answers. */
export interface WriteNotes {
  missing: number[];
  sameName: SomeTerms;
}
