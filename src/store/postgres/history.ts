import type pg from 'pg';
import type { HistoryEntry, HistoryPage, HistorySlice } from '../../glossary/history.ts';
import {
  toEntry as entryOf,
  NO_CURSOR,
  type EntryRow as SharedEntryRow,
} from '../history-entries.ts';
import { COLUMNS, type Row, toTerm } from './term-rows.ts';

/**
 * Reading a term's history, as in the SQLite store: the rows of `term_history` with the id,
 * plus the creation of each live term with the id that never changed (kept on its `terms` row
 * only). Every read takes what it needs through the indexes `term_history (id, revision)` and
 * `terms (id, ...)`: a page, a count or one entry costs the same for a term changed a million
 * times as for one changed once.
 */

export type EntryRow = SharedEntryRow<Row>;

export const toEntry = (row: EntryRow) => entryOf(row, toTerm);

/** A live term's columns, from `terms t`: a creation kept only on its row. */
export const LIVE_FIELDS = COLUMNS.split(', ')
  .map((column) => `t.${column}`)
  .join(', ');

/** A recorded entry's columns, from `term_history`, shaped as a live creation's. */
export const RECORDED_FIELDS = `revision, seq, action, at, by, term AS state,
  NULL::bigint AS id, NULL::text AS term, NULL::text AS definition,
  NULL::text AS category, NULL::jsonb AS see_also, NULL::jsonb AS aliases,
  NULL::jsonb AS avoid`;

/**
 * A page of the id's entries older than `$2` (`$1` the id), `$3` of them after skipping `$4`.
 * Each side of the union is cut to the page's end first, in the order of its index, so the
 * page reads `$3 + $4` entries at most, not the whole history.
 */
const ENTRIES = `
  (SELECT ${RECORDED_FIELDS}
   FROM term_history WHERE id = $1 AND revision < $2
   ORDER BY revision DESC LIMIT $3::bigint + $4::bigint)
  UNION ALL
  (SELECT t.created_rev, t.seq, 'created', t.created_at, t.created_by, NULL, ${LIVE_FIELDS}
   FROM terms t
   WHERE t.id = $1 AND t.created_rev < $2
     AND NOT EXISTS (SELECT 1 FROM term_history h WHERE h.revision = t.created_rev)
   ORDER BY t.created_rev DESC LIMIT $3::bigint + $4::bigint)
  ORDER BY revision DESC LIMIT $3 OFFSET $4`;

/**
 * The page, how many entries there are in all and whether the id ever existed, in one
 * statement: one snapshot. The page is joined to a one-row summary, so an empty page still
 * brings the summary.
 */
const PAGE = `
  WITH page AS (${ENTRIES})
  SELECT s.total, s.existed, p.*
  FROM (SELECT
          (SELECT count(*) FROM term_history WHERE id = $1 AND revision < $2)
          + (SELECT count(*) FROM terms t WHERE t.id = $1 AND t.created_rev < $2
               AND NOT EXISTS (SELECT 1 FROM term_history h WHERE h.revision = t.created_rev))
            AS total,
          EXISTS (SELECT 1 FROM term_ids WHERE id = $1) AS existed) s
  LEFT JOIN page p ON true
  ORDER BY p.revision DESC`;

/** One entry: `$1` the id, `$2` the revision. */
const ENTRY = `
  SELECT ${RECORDED_FIELDS}
  FROM term_history WHERE revision = $2 AND id = $1
  UNION ALL
  SELECT t.created_rev, t.seq, 'created', t.created_at, t.created_by, NULL, ${LIVE_FIELDS}
  FROM terms t WHERE t.id = $1 AND t.created_rev = $2
  LIMIT 1`;

export async function historyPage(
  client: pg.ClientBase,
  id: number,
  { limit, offset = 0, before = NO_CURSOR }: HistoryPage,
): Promise<HistorySlice | undefined> {
  const { rows } = await client.query<
    Omit<EntryRow, 'revision'> & { revision: number | null; total: number; existed: boolean }
  >({ name: 'history-page', text: PAGE, values: [id, before, limit, offset] });
  const [summary] = rows;
  if (!summary?.existed) return undefined;
  return {
    entries: rows.flatMap((row) => (row.revision === null ? [] : [toEntry(row as EntryRow)])),
    total: summary.total,
  };
}

/** The entry `revision` of the id's history, with the place (`seq`) of its term. */
export async function historyEntry(
  client: pg.ClientBase,
  id: number,
  revision: number,
): Promise<(HistoryEntry & { seq: number }) | undefined> {
  const { rows } = await client.query<EntryRow>({
    name: 'history-entry',
    text: ENTRY,
    values: [id, revision],
  });
  const [row] = rows;
  return row && { ...toEntry(row), seq: row.seq };
}

/** The time of the newest entry recorded in the id's history, or null. */
export async function historyLastAt(client: pg.ClientBase, id: number): Promise<number | null> {
  const { rows } = await client.query<{ at: number }>(
    'SELECT at FROM term_history WHERE id = $1 ORDER BY revision DESC LIMIT 1',
    [id],
  );
  return rows[0]?.at ?? null;
}
