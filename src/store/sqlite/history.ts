import type Database from 'better-sqlite3';
import type { HistoryEntry, HistoryPage, HistorySlice } from '../../glossary/history.ts';
import {
  toEntry as entryOf,
  NO_CURSOR,
  type EntryRow as SharedEntryRow,
} from '../history-entries.ts';
import { type TermRow, toTerm } from './term-rows.ts';

/**
 * Reading a term's history. Its entries are the rows of `term_history` with the id, plus the
 * creation of each live term with the id that never changed (kept on its `terms` row only:
 * an import writes no history). Every read takes what it needs through the indexes
 * `term_history (id, revision)` and `terms (id, ...)`: a page, a count or one entry costs the
 * same for a term changed a million times as for one changed once.
 */

type EntryRow = SharedEntryRow<TermRow>;

const toEntry = (row: EntryRow) => entryOf(row, toTerm);

// A creation read from the live row brings the term's fields; a recorded entry brings nulls in
// their place (and its state as JSON): one row shape for both. Each side of the union is cut
// to the page's end first, in the order of its index, so a page reads `limit + offset` entries
// at most, not the whole history.
export const FIELDS = ['id', 'term', 'definition', 'category', 'see_also', 'aliases', 'avoid'];
const ENTRIES = `
  SELECT * FROM (
    SELECT revision, seq, action, at, by, term AS state,
           ${FIELDS.map((f) => `NULL AS ${f}`).join(', ')}
    FROM term_history WHERE id = @id AND revision < @before
    ORDER BY revision DESC LIMIT @limit + @offset)
  UNION ALL
  SELECT * FROM (
    SELECT t.created_rev, t.seq, 'created', t.created_at, t.created_by, NULL,
           ${FIELDS.map((f) => `t.${f}`).join(', ')}
    FROM terms t
    WHERE t.id = @id AND t.created_rev < @before
      AND NOT EXISTS (SELECT 1 FROM term_history h WHERE h.revision = t.created_rev)
    ORDER BY t.created_rev DESC LIMIT @limit + @offset)
  ORDER BY revision DESC LIMIT @limit OFFSET @offset`;

export interface HistoryReads {
  /** Undefined when the id never existed. Run it inside a read transaction: one snapshot. */
  page(id: number, page: HistoryPage): HistorySlice | undefined;
  /** The entry `revision` of the id's history, with the place (`seq`) of its term. */
  entry(id: number, revision: number): (HistoryEntry & { seq: number }) | undefined;
  /** Whether the id ever had a term. */
  existed(id: number): boolean;
  /** The time of the newest entry recorded in the id's history, if any. */
  lastAt(id: number): number | undefined;
}

export function historyReads(db: Database.Database): HistoryReads {
  const entries = db.prepare<
    { id: number; before: number; limit: number; offset: number },
    EntryRow
  >(ENTRIES);
  const count = db
    .prepare<{ id: number; before: number }, number>(
      `SELECT (SELECT count(*) FROM term_history WHERE id = @id AND revision < @before)
            + (SELECT count(*) FROM terms t WHERE t.id = @id AND t.created_rev < @before
                 AND NOT EXISTS (SELECT 1 FROM term_history h WHERE h.revision = t.created_rev))`,
    )
    .pluck();
  const recorded = db.prepare<[number, number], EntryRow>(
    `SELECT revision, seq, action, at, by, term AS state FROM term_history
     WHERE revision = ? AND id = ?`,
  );
  const created = db.prepare<[number, number], EntryRow>(
    `SELECT t.created_rev AS revision, t.seq, 'created' AS action, t.created_at AS at,
            t.created_by AS by, NULL AS state, ${FIELDS.map((f) => `t.${f}`).join(', ')}
     FROM terms t WHERE t.id = ? AND t.created_rev = ?`,
  );
  const existed = db
    .prepare<[number, number], 1>(
      `SELECT 1 WHERE EXISTS (SELECT 1 FROM term_history WHERE id = ?)
                   OR EXISTS (SELECT 1 FROM terms WHERE id = ?)`,
    )
    .pluck();
  const lastAt = db
    .prepare<[number], number>(
      'SELECT at FROM term_history WHERE id = ? ORDER BY revision DESC LIMIT 1',
    )
    .pluck();

  return {
    page(id, { limit, offset = 0, before = NO_CURSOR }) {
      if (existed.get(id, id) === undefined) return undefined;
      return {
        entries: entries.all({ id, before, limit, offset }).map(toEntry),
        total: count.get({ id, before }) ?? 0,
      };
    },
    entry(id, revision) {
      const row = recorded.get(revision, id) ?? created.get(id, revision);
      return row && { ...toEntry(row), seq: row.seq };
    },
    existed: (id) => existed.get(id, id) !== undefined,
    lastAt: (id) => lastAt.get(id),
  };
}
