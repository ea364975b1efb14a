import type { Warn } from '../../glossary/term-store.ts';
import { QuietTime, type QuietTimers } from '../quiet-time.ts';
import { isUnavailable } from './errors.ts';

/**
 * Upkeep of the GIN indexes' pending lists, the PostgreSQL side of what sqlite/upkeep.ts does
 * for SQLite. A GIN index takes new entries into a pending list (at most 64 kB for the
 * service's connections, pool.ts) and every search through the index reads all of it, so a
 * list only part full makes every look-up of a word cost several times more
 * (docs/performance.md). A bulk import fills the lists further and empties them itself before
 * it commits (`RAISE_PENDING_LISTS`, bulk-import.ts). Nothing else empties the lists short
 * of the next insert that overflows them, or autovacuum, whose ANALYZE of the table waits for
 * a tenth of it to change (100,000 rows at a million terms).
 *
 * So once this process has written and then not written for `idleMs`, it merges the six
 * lists into their indexes (`gin_clean_pending_list`, a few milliseconds a list, with reads
 * and writes going on). The lists stay on (`fastupdate`): turning them off keeps every search
 * fast but halves bulk imports.
 *
 * Only the owner of the indexes (or a superuser) may merge them: the role that ran the
 * migrations. A service running as another role is told once, and searches after writes stay
 * slower until autovacuum merges the lists.
 *
 * The same quiet moment runs the store's other upkeep (`tidy`: the vocabulary's old removals
 * purged, vocabulary.ts), whoever owns the indexes.
 */
export interface PendingListsOptions {
  /** Quiet time after this process's last write before the lists are merged. */
  idleMs?: number;
  /** How long the vocabulary keeps a removal for other processes (vocabulary.ts). */
  keepRemovalsMs?: number;
  /** The timers that wait for quiet (quiet-time.ts): the process's, unless a test drives them. */
  timers?: QuietTimers;
}

export interface PendingLists {
  /** After a write committed: (re)starts the wait for quiet. */
  wrote(): void;
  /** Stops waiting, and waits for a merge under way. */
  close(): Promise<void>;
}

const INDEXES = [
  'terms_name_words',
  'terms_all_words',
  'terms_avoid_words',
  'terms_alias_keys',
  'terms_term_trigrams',
  'terms_see_also',
];
/** Empties every search index's pending list into its index; only their owner may. */
export const MERGE_PENDING_LISTS = `SELECT ${INDEXES.map((index) => `gin_clean_pending_list('${index}'::regclass)`).join(', ')}`;
/**
 * Inside a transaction: whether this role may merge the lists (owns the indexes, or a superuser);
 * if so, lets its inserts fill each list to 4 MB before one is emptied, instead of 64 kB
 * (pool.ts). One row when it did.
 */
export const RAISE_PENDING_LISTS = `
  SELECT set_config('gin_pending_list_limit', '4MB', true)
  FROM (SELECT bool_and(pg_has_role(relowner, 'USAGE')) AS owner FROM pg_class
        WHERE oid = ANY(ARRAY[${INDEXES.map((index) => `'${index}'::regclass`).join(', ')}])) AS o
  WHERE owner`;
/**
 * A merge waits for no lock for long (REINDEX holds one, say): the service's shutdown waits
 * for a merge under way, and the next quiet moment tries again.
 */
const MERGE = `BEGIN;
  SET LOCAL lock_timeout = '1s';
  SET LOCAL statement_timeout = '30s';
  ${MERGE_PENDING_LISTS};
  COMMIT`;
/** insufficient_privilege: not the owner of the indexes. */
const NOT_OWNER = '42501';
/** A standby, where nothing can be merged (the primary merges its own). */
const IN_RECOVERY = '55000';

export function pendingListUpkeep(
  run: (sql: string) => Promise<unknown>,
  warn: Warn,
  options: PendingListsOptions = {},
  tidy: () => Promise<unknown> = async () => undefined,
): PendingLists {
  let merging: Promise<void> | undefined;
  /** A quiet moment came while a merge was under way: look again when it ends. */
  let lookAgain = false;
  let stopped = false;
  let owner = true;

  const merge = async () => {
    if (!owner) return;
    try {
      await run(MERGE);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === NOT_OWNER) {
        owner = false;
        warn(
          "cannot merge the search indexes' pending lists (the service's role does not own them); searches after writes stay slower until autovacuum merges them",
          error,
        );
      } else if (code !== IN_RECOVERY && !isUnavailable(error)) {
        warn(
          "could not merge the search indexes' pending lists; will retry after the next write",
          error,
        );
      }
      // Unavailable: the next write (once the server is back) starts the wait again.
    }
  };

  const tidyUp = async () => {
    try {
      await tidy();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code !== IN_RECOVERY && !isUnavailable(error)) {
        warn('could not purge the removed words of the vocabulary; will retry when quiet', error);
      }
    }
  };

  const check = () => {
    if (stopped) return;
    if (merging) {
      lookAgain = true;
      return;
    }
    merging = Promise.all([merge(), tidyUp()]).then(() => {
      merging = undefined;
      if (lookAgain) {
        lookAgain = false;
        check();
      }
    });
  };
  const quiet = new QuietTime(options.idleMs ?? 1000, check, options.timers);

  return {
    wrote() {
      if (!stopped) quiet.restart();
    },
    async close() {
      stopped = true;
      quiet.stop();
      await merging;
    },
  };
}

/** How often an instance that writes prunes the change log of counts (kept-counts.ts). */
const PRUNE_EVERY_MS = 60_000;

/**
 * The change log of counts is pruned by instances that write, at most once every
 * PRUNE_EVERY_MS each, beside the write that found it due. A failure leaves the log longer
 * (counts stay exact, and slower to carry on as it grows) and is told, at most once a prune,
 * until a prune succeeds.
 */
export function changeLogPruning(
  prune: () => Promise<void>,
  warn: Warn,
): { wrote(): void; close(): Promise<void> } {
  let pruning: Promise<void> | undefined;
  let prunedAt = Number.NEGATIVE_INFINITY;
  let closed = false;
  return {
    wrote() {
      if (pruning || closed || performance.now() - prunedAt < PRUNE_EVERY_MS) return;
      prunedAt = performance.now();
      pruning = prune()
        .catch((error: unknown) => {
          if (!closed)
            warn('could not prune the change log of counts (term_changes); will retry', error);
        })
        .finally(() => {
          pruning = undefined;
        });
    },
    async close() {
      closed = true;
      await pruning;
    },
  };
}
