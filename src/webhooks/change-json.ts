import { type ChangeType, changeType } from '../glossary/changes.ts';
import type { HistoryEntry } from '../glossary/history.ts';
import type { Term } from '../glossary/term.ts';

/**
 * A change as the wire shows it (GET /changes, its events, a webhook's `data`): the history
 * entry with its feed type, the term's id beside the term, and the time in ISO 8601. Written
 * once here, pure, so that every place that sends a change sends the same fields.
 */
export interface ChangeJson {
  revision: number;
  type: ChangeType;
  id: number;
  at: string;
  by: string | null;
  term: Term;
}

export function changeJson(entry: HistoryEntry): ChangeJson {
  return {
    revision: entry.revision,
    type: changeType(entry),
    id: entry.term.id,
    at: new Date(entry.at).toISOString(),
    by: entry.by,
    term: entry.term,
  };
}
