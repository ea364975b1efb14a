import type { HistoryAction, HistoryEntry } from '../glossary/history.ts';
import type { Term } from '../glossary/term.ts';

/**
 * A history entry as both stores read it: a row of `term_history`, or the creation of a live
 * term read from its `terms` row (which then brings the term's fields, in the backend's row
 * shape `R`, where a recorded entry brings its state as JSON).
 */
export type EntryRow<R> = Partial<R> & {
  revision: number;
  seq: number;
  action: HistoryAction;
  at: number;
  by: string | null;
  /** The recorded state (JSON), or null for a creation read from the live row. */
  state: string | null;
};

/** Revisions are positive, so this is "no cursor". */
export const NO_CURSOR = Number.MAX_SAFE_INTEGER;

export function toEntry<R>(row: EntryRow<R>, toTerm: (row: R) => Term): HistoryEntry {
  return {
    revision: row.revision,
    action: row.action,
    at: row.at,
    by: row.by,
    term: row.state === null ? toTerm(row as R) : (JSON.parse(row.state) as Term),
  };
}
