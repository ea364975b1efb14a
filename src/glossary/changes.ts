import type { HistoryAction, HistoryEntry } from './history.ts';

/**
 * The change feed: the glossary's history, every term's entries in one line, oldest first
 * (GET /changes, its Server-Sent Events, and the webhooks all read it).
 *
 * A change is a history entry (`HistoryEntry`: revision, action, at, by, the term's state after
 * it); its id is `entry.term.id`. The feed's type names are the actions with a `term.` prefix.
 */
export type ChangeType = `term.${HistoryAction}`;

export const CHANGE_TYPES = [
  'term.created',
  'term.updated',
  'term.deleted',
  'term.restored',
] as const satisfies readonly ChangeType[];

export function changeType(entry: HistoryEntry): ChangeType {
  return `term.${entry.action}`;
}

/**
 * What a store gives the feed. The rules (test/store/changes-contract.test.ts holds both
 * backends to them):
 *
 * 1. Complete. Every history entry of every id is in the feed under its revision, a term's
 *    creation included (an import's too), and a term's state at that revision; the same entry
 *    `history(id)` answers. Revisions only grow; gaps (a write rolled back, an upgrade that moved
 *    the revision) are allowed.
 * 2. Exactly once, never skipped. A follower that asks `changesSince(next)` with the last
 *    revision it was given sees every committed change exactly once, in revision order, while any
 *    number of writers in any number of processes or instances commit. A change whose revision
 *    was drawn by a transaction that has not committed yet holds back every change above it
 *    until that transaction has ended (committed or rolled back): a change is answered only once
 *    no change below it can still appear.
 * 3. Woken. `watchChanges` calls its listener (soon, not necessarily at once, possibly more
 *    often than needed) after a change was committed by any process or instance on this
 *    storage, and after changes held back by rule 2 have become answerable. It costs no
 *    connection per listener: one per process at most, whatever the number of listeners.
 */
export interface ChangeFeed {
  /** The changes with a revision above `since`, oldest first, at most `limit` of them. */
  changesSince(since: number, limit: number): Promise<HistoryEntry[]>;
  /**
   * The highest revision any history entry has or may yet have (drawn, maybe not committed):
   * where a new webhook starts, and what its lag is counted against.
   */
  latestRevision(): Promise<number>;
  /** Calls `listener` as rule 3 says until the returned function is called. */
  watchChanges(listener: () => void): () => void;
}

/** A change as the feed, its event stream and the webhooks show it. */
export interface ChangeRecord {
  revision: number;
  type: ChangeType;
  id: number;
  /** RFC 3339, UTC. */
  at: string;
  by: string | null;
  /** The state after the change; for a deletion, the state deleted. */
  term: HistoryEntry['term'];
}

export function changeRecord(entry: HistoryEntry): ChangeRecord {
  return {
    revision: entry.revision,
    type: changeType(entry),
    id: entry.term.id,
    at: new Date(entry.at).toISOString(),
    by: entry.by,
    term: entry.term,
  };
}
