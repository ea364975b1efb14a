import type { TermFilter } from '../../glossary/filters.ts';
import { StatementNames } from './statement-names.ts';
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
 * than KEPT_FOR: those transactions ended before any snapshot still served was taken. That
 * is what keeps counts carried on; what keeps them exact is `changedSince`, which takes none
 * through a log pruned above its snapshot's xmin, whatever the clocks did.
 *
 * A count of at least `keepFrom` terms (the slow ones) is also kept in the database, in
 * `kept_counts` (migration 6), so that an instance that has none in memory (just started, or
 * one more of several) carries it on from there instead of counting afresh: a restarted
 * instance at 1M terms otherwise took its first seconds counting each broad search at once.
 * A count in memory is written back there at most every SAVE_EVERY, which keeps it younger
 * than KEPT_FOR while any instance serves that search. The table is unlogged (it is a cache: a
 * crash empties it), keyed by the SQL that counts and its values, so that a release that
 * counts a filter differently never takes another's count, and carried on only by the server
 * that took it (SERVER_STARTED). Writing it is best effort: where the server refuses
 * (read-only), counts are only kept in memory.
 */
export interface KeptCounts {
  /** The exact number of terms matching `filter` now. */
  count(filter: TermFilter): Promise<number>;
  /** Deletes the log rows no kept count can need (from any instance), and expired counts. */
  prune(): Promise<void>;
}

/** A filter's conditions as SQL (`filterSql`); statements append their own values. */
type Conditions = { where: string; values: unknown[] };

/** A statement; `name` makes it a prepared one on each connection (statement-names.ts). */
type Query = <R extends Record<string, unknown>>(
  text: string,
  values?: unknown[],
  name?: string,
) => Promise<R[]>;

interface Kept {
  count: number;
  /** `pg_current_snapshot()` of the statement that gave `count`, as text. */
  snapshot: string;
  /** The database's clock when it was taken, in seconds. */
  at: number;
  /** The database's clock when the count in `kept_counts` was taken, if there is one. */
  saved?: number;
}

/** How long a kept count may serve, in seconds. */
const KEPT_FOR = 300;
/** How long a recorded horizon waits before the rows below it are pruned, in seconds. */
const PRUNE_AFTER = 2 * KEPT_FOR;
/** How often a count kept in the database is written again, in seconds. */
const SAVE_EVERY = 60;
/** Counts of at least this many terms are kept in the database (smaller ones are quick). */
const KEEP_FROM = 10_000;
/** How many shapes of the statement that carries a count on are prepared. */
const ONWARD_SHAPES = 64;
/** At most this many filters are kept in memory; then it starts afresh. */
const MAX_KEPT = 256;
/** Transaction-level advisory lock of pruning ("GLOSPRUN"), so one instance prunes at a time. */
const PRUNE_LOCK = 0x474c4f535052554en;

/**
 * `aggregate` over the logged rows that `snapshot` (SQL naming a pg_snapshot) did not see and
 * the current one does: NULL if a statement since then changed too many rows to list (sign 0),
 * or if the log may have been pruned of a row that snapshot did not see. Counts (`changedSince`)
 * and a ranking's first pages (ranking-reads.ts) are carried on by it.
 *
 * The second is checked by transaction ids, not by time: a prune deletes the rows below its
 * horizon and keeps that horizon as the lowest one recorded (the one it records is never
 * below it), so a snapshot whose xmin is not below it lost nothing. Pruning by time alone
 * would trust the clock: stepped back by more than PRUNE_AFTER - KEPT_FOR, it lets a horizon
 * recorded after a count look old enough to prune by while the count still looks young.
 *
 * The unseen rows are read once, through the log's index of `xid`, for both the mark of many
 * rows (sign 0) and the aggregate. Asked apart, as `EXISTS (... sign = 0)`, the planner
 * expected to find a mark early and read the whole log, finding none: under a stream of
 * creates each `q` page's count read every row logged in the last minutes (5,201 rows, 1.9
 * ms, against 0.1 ms). The planner cannot estimate a bound on `xid8` (it guesses a third of
 * the log, and reads all of it once the log is large), but it takes a range with two bounds
 * for a narrow one: hence the upper bound, above every transaction the statement can see,
 * its own included (a snapshot's xmax may be at or below the running transaction's id).
 */
export function sinceSnapshot(snapshot: string, aggregate: string): string {
  const unseen = `xid >= pg_snapshot_xmin(${snapshot})
                  AND xid <= greatest(pg_snapshot_xmax(pg_current_snapshot()),
                                      pg_current_xact_id_if_assigned())
                  AND NOT pg_visible_in_snapshot(xid, ${snapshot})`;
  return `CASE
            WHEN pg_snapshot_xmin(${snapshot}) < (SELECT min(oldest) FROM term_change_horizons)
              THEN NULL
            ELSE (SELECT CASE WHEN bool_or(sign = 0) THEN NULL ELSE ${aggregate} END
                  FROM term_changes WHERE ${unseen})
          END`;
}

/**
 * The change in matching terms since `snapshot`, from the log (`sinceSnapshot`). `where` is
 * the filter's conditions (the log has the columns they name).
 */
function changedSince(snapshot: string, where: string): string {
  return sinceSnapshot(snapshot, `coalesce(sum(sign) ${where ? `FILTER (${where})` : ''}, 0)::int`);
}

/**
 * When the server started: a snapshot speaks of that server's transaction ids, so a count is
 * carried on only by the server that took it, not by a copy of the database restored on
 * another, whose ids may run below the snapshot's (and so, simply, not across a restart of the
 * server either).
 */
const SERVER_STARTED = 'extract(epoch FROM pg_postmaster_start_time())::float8';

const SNAPSHOT_NOW = `pg_current_snapshot()::text AS snapshot,
                      extract(epoch FROM now())::float8 AS at`;

export function keptCounts(
  query: Query,
  { keepFrom = KEEP_FROM }: { keepFrom?: number } = {},
): KeptCounts {
  const kept = new Map<string, Kept>();
  // Carrying a count on is a statement of a few rows of the log, asked after every write for
  // each count read again: planned at each run it cost about three times its execution
  // (pg_stat_statements, the mixed load: 0.1 ms of planning against 0.035 ms). Its plan does
  // not depend on the values (the log is read through its index of `xid` whatever they are).
  const onwardNames = new StatementNames('count-onward', ONWARD_SHAPES);

  /**
   * The count from the one kept in the database if it can be (`saved` is then when that one
   * was taken), else afresh. The fresh count is only taken when needed: PostgreSQL evaluates
   * COALESCE's second argument, a sub-select, only when the first is NULL.
   */
  async function countStored(key: string, { where, values }: Conditions): Promise<Kept> {
    values.push(key);
    const rows = await query<{ count: number; saved: number | null; snapshot: string; at: number }>(
      `WITH stored AS (
         SELECT count + ${changedSince('snapshot::pg_snapshot', where)} AS count, at
         FROM kept_counts
         WHERE key = $${values.length} AND extract(epoch FROM now()) - at <= ${KEPT_FOR}
           AND started = ${SERVER_STARTED}
       )
       SELECT coalesce((SELECT count FROM stored), (SELECT count(*)::int FROM terms ${where}))
                AS count,
              (SELECT at FROM stored WHERE count IS NOT NULL) AS saved,
              ${SNAPSHOT_NOW}`,
      values,
    );
    const row = rows[0];
    if (!row) throw new Error('count answered no row');
    return { count: row.count, snapshot: row.snapshot, at: row.at, saved: row.saved ?? undefined };
  }

  /** The count at the current snapshot from one kept earlier, or undefined if it cannot be. */
  async function countOnward({ where, values }: Conditions, from: Kept): Promise<Kept | undefined> {
    values.push(from.snapshot, from.at);
    const text = `SELECT CASE
                WHEN extract(epoch FROM now()) - $${values.length} > ${KEPT_FOR} THEN NULL
                ELSE ${changedSince(`$${values.length - 1}::pg_snapshot`, where)}
              END AS delta,
              ${SNAPSHOT_NOW}`;
    const rows = await query<{ delta: number | null; snapshot: string; at: number }>(
      text,
      values,
      onwardNames.nameOf(text),
    );
    const row = rows[0];
    if (!row || row.delta === null) return undefined;
    return { count: from.count + row.delta, snapshot: row.snapshot, at: row.at, saved: from.saved };
  }

  /** Writes a slow count to `kept_counts` if the one there is SAVE_EVERY old or missing. */
  async function save(key: string, count: Kept): Promise<Kept> {
    if (count.count < keepFrom || count.at - (count.saved ?? -Infinity) < SAVE_EVERY) return count;
    try {
      await query(
        `INSERT INTO kept_counts (key, count, snapshot, at, started)
         VALUES ($1, $2, $3, $4, ${SERVER_STARTED})
         ON CONFLICT (key) DO UPDATE SET count = excluded.count, snapshot = excluded.snapshot,
           at = excluded.at, started = excluded.started
         WHERE kept_counts.at < excluded.at OR kept_counts.started <> excluded.started`,
        [key, count.count, count.snapshot, count.at],
      );
      return { ...count, saved: count.at };
    } catch {
      return count; // kept in memory only; tried again at the next count
    }
  }

  return {
    async count(filter) {
      const { where, values } = filterSql(filter);
      const key = JSON.stringify([where, values]);
      const conditions = () => ({ where, values: [...values] });
      const before = kept.get(key);
      const now = await save(
        key,
        (before && (await countOnward(conditions(), before))) ||
          (await countStored(key, conditions())),
      );
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
         ),
         expired AS (
           DELETE FROM kept_counts
           WHERE at < extract(epoch FROM now()) - ${KEPT_FOR} AND (SELECT ok FROM locked)
         )
         INSERT INTO term_change_horizons (at, oldest)
         SELECT now(), greatest(pg_snapshot_xmin(pg_current_snapshot()), (SELECT oldest FROM horizon))
         WHERE (SELECT ok FROM locked)`,
      );
    },
  };
}
