import type { TermFilter } from '../term-store.ts';
import { filterSql } from './term-rows.ts';

/**
 * Exact counts of filtered terms, kept from one snapshot to the next by the change log
 * instead of counted again (migration 5). Counting a broad word at 1,000,000 terms visits
 * every table page its terms are on (about 0.2 s on an idle machine, seconds under load), and
 * every write made every kept count stale: the first broad searches after a write queued
 * behind their counts. Now a count remembers the snapshot it was taken in; the next count of
 * the same filter adds, to it, the signs of the logged rows that snapshot did not see and the
 * current one does (a transaction's id is visible to a snapshot when it ended before the
 * snapshot was taken), among those the filter matches. An edit is a row leaving (-1) and one
 * entering (+1), so any run of changes telescopes to the right count; a statement that
 * changed many rows logs only that it did, and the next count is taken afresh.
 *
 * Pruning the log must never remove a row a kept snapshot has not seen. A kept count serves
 * only while younger than KEPT_FOR (by the database's clock). Each prune records the oldest
 * transaction id still running (its snapshot's xmin: every transaction below it has ended),
 * and deletes the rows below an xmin it recorded at least PRUNE_AFTER ago, which is longer
 * than KEPT_FOR: those transactions ended before any snapshot still served was taken.
 */
export interface KeptCounts {
  /** The exact number of terms matching `filter` now. */
  count(filter: TermFilter): Promise<number>;
  /** Deletes the log rows no kept count can need (from any instance). */
  prune(): Promise<void>;
}

type Query = <R extends Record<string, unknown>>(text: string, values?: unknown[]) => Promise<R[]>;

interface Kept {
  count: number;
  /** `pg_current_snapshot()` of the statement that gave `count`, as text. */
  snapshot: string;
  /** The database's clock when it was taken, in seconds. */
  at: number;
}

/** How long a kept count may serve, in seconds. */
const KEPT_FOR = 300;
/** How long a recorded horizon waits before the rows below it are pruned, in seconds. */
const PRUNE_AFTER = 2 * KEPT_FOR;
/** At most this many filters are kept; then it starts afresh. */
const MAX_KEPT = 256;
/** Transaction-level advisory lock of pruning ("GLOSPRUN"), so one instance prunes at a time. */
const PRUNE_LOCK = 0x474c4f535052554en;

export function keptCounts(query: Query): KeptCounts {
  const kept = new Map<string, Kept>();

  async function countAfresh(filter: TermFilter): Promise<Kept> {
    const { where, values } = filterSql(filter);
    const rows = await query<{ count: number; snapshot: string; at: number }>(
      `SELECT count(*)::int AS count, pg_current_snapshot()::text AS snapshot,
              extract(epoch FROM now())::float8 AS at
       FROM terms ${where}`,
      values,
    );
    const row = rows[0];
    if (!row) throw new Error('count answered no row');
    return row;
  }

  /** The count at the current snapshot from one kept earlier, or undefined if it cannot be. */
  async function countOnward(filter: TermFilter, from: Kept): Promise<Kept | undefined> {
    const { where, values } = filterSql(filter);
    values.push(from.snapshot, from.at);
    const snapshot = `$${values.length - 1}::pg_snapshot`;
    const unseen = `xid >= pg_snapshot_xmin(${snapshot}) AND NOT pg_visible_in_snapshot(xid, ${snapshot})`;
    const rows = await query<{ delta: number | null; snapshot: string; at: number }>(
      `SELECT CASE
                WHEN extract(epoch FROM now()) - $${values.length} > ${KEPT_FOR}
                  OR EXISTS (SELECT FROM term_changes WHERE ${unseen} AND sign = 0) THEN NULL
                ELSE (SELECT coalesce(sum(sign), 0)::int FROM term_changes
                      ${where ? `${where} AND` : 'WHERE'} ${unseen})
              END AS delta,
              pg_current_snapshot()::text AS snapshot,
              extract(epoch FROM now())::float8 AS at`,
      values,
    );
    const row = rows[0];
    if (!row || row.delta === null) return undefined;
    return { count: from.count + row.delta, snapshot: row.snapshot, at: row.at };
  }

  return {
    async count(filter) {
      const key = JSON.stringify(filter);
      const before = kept.get(key);
      const now = (before && (await countOnward(filter, before))) || (await countAfresh(filter));
      if (!before && kept.size >= MAX_KEPT) kept.clear();
      kept.set(key, now);
      return now.count;
    },
    async prune() {
      await query(
        `WITH locked AS (SELECT pg_try_advisory_xact_lock(${PRUNE_LOCK}) AS ok),
         horizon AS (
           SELECT max(oldest) AS oldest FROM term_change_horizons
           WHERE at < now() - interval '${PRUNE_AFTER} seconds' AND (SELECT ok FROM locked)
         ),
         pruned AS (
           DELETE FROM term_changes WHERE xid < (SELECT oldest FROM horizon)
         ),
         forgotten AS (
           DELETE FROM term_change_horizons WHERE oldest < (SELECT oldest FROM horizon)
         )
         INSERT INTO term_change_horizons (at, oldest)
         SELECT now(), pg_snapshot_xmin(pg_current_snapshot()) WHERE (SELECT ok FROM locked)`,
      );
    },
  };
}
