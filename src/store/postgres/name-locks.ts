import pg from 'pg';
import { type LiveName, LiveNames } from '../term-names.ts';
import { decodeNul, encodeNul } from './nul-text.ts';

/**
 * Rule 8 across transactions (TermStore, other-names.ts): no name to avoid of a live term may
 * equal, folded, another live term's name or alias. Each write checks the names it writes
 * against `term_names` inside its transaction; but under READ COMMITTED two transactions can
 * both check before either commits (one storing `avoid: ['X']`, the other a term named `X`),
 * both find nothing, and both commit. So before it checks, a write that stores names takes
 * transaction advisory locks on their folds: both writers of `X` want the same lock, the
 * second waits until the first commits, and its check (a statement of its own, so a fresh
 * snapshot) then sees the first's names.
 *
 * The locks are two-key advisory locks (a key space apart from the store's one-key locks),
 * the first key NAME_LOCKS: a fold is hashed into one of BUCKETS buckets, the second key.
 * Different names may share a bucket, which only makes their writers queue; the same name is
 * always the same bucket. One transaction never holds more than MOST_BUCKETS + 1 of them, so a
 * bulk import of 10,000 items (up to 41 names each) never fills PostgreSQL's shared lock table
 * (64 locks a connection on a default server): every write first takes the key
 * (NAME_LOCKS, ALL_NAMES), shared when its names fall in at most MOST_BUCKETS buckets, then
 * those buckets; a write whose names fall in more (an import of more than a few terms) takes
 * that key exclusively and no bucket, which holds every name at once. Buckets are locked in
 * ascending order after ALL_NAMES, so two writers never wait for each other in a cycle.
 *
 * Order among the store's locks: a write locks its id(s) in `term_ids` first (writes.ts), then
 * these, then the vocabulary's (vocabulary.ts), then a revision counter (transaction.ts). A
 * transaction holding name locks waits only for name locks higher in the order, the
 * vocabulary's or a counter, never for an id, so no wait can close a cycle. A removal stores
 * no name and takes none.
 */

/** The first key of the name locks ("GLOS"). */
const NAME_LOCKS = 0x474c4f53;
/** The second key that stands for every name. */
const ALL_NAMES = -1;
/** How many buckets the folds are hashed into (second keys 0 to BUCKETS - 1). */
const BUCKETS = 1 << 16;
/** The most buckets one transaction locks one by one. */
export const MOST_BUCKETS = 64;

/** FNV-1a of the fold's UTF-16 code units, into a bucket. */
export function bucketOf(fold: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < fold.length; i += 1) {
    hash ^= fold.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % BUCKETS;
}

/** The SQL that takes the name locks for these folds, in their order (see above). */
export function nameLockSql(folds: Iterable<string>): string {
  const buckets = [...new Set([...folds].map(bucketOf))].sort((a, b) => a - b);
  if (buckets.length > MOST_BUCKETS) {
    return `SELECT pg_advisory_xact_lock(${NAME_LOCKS}, ${ALL_NAMES})`;
  }
  // The buckets are given sorted, and the outer scan calls the function in the order of the
  // sorted subquery's rows.
  return `SELECT pg_advisory_xact_lock_shared(${NAME_LOCKS}, ${ALL_NAMES});
    SELECT pg_advisory_xact_lock(${NAME_LOCKS}, b)
    FROM (SELECT b FROM unnest('{${buckets.join(',')}}'::int[]) b ORDER BY b) s`;
}

/** Takes the locks of these folds. */
export async function lockNames(client: pg.ClientBase, folds: Iterable<string>): Promise<void> {
  await client.query(nameLockSql(folds));
}

/**
 * Each name's term through the primary key, one row at a time (OFFSET 0 keeps the lateral
 * subquery from being joined as a whole): the planner, expecting many names for a list of
 * folds, hashed every term (a scan of the glossary) as soon as one name matched.
 */
const LIVE_NAMES = (folds: string) =>
  `SELECT n.fold, n.kind, t.id, n.seq FROM term_names n
   CROSS JOIN LATERAL (SELECT id FROM terms WHERE terms.seq = n.seq OFFSET 0) t
   WHERE n.fold = ANY(${folds})`;

const liveNames = (rows: LiveName[]) =>
  new LiveNames(rows.map((row) => ({ ...row, fold: decodeNul(row.fold) })));

/** The names of live terms with one of these folds (read after `lockNames`). */
export async function liveNamesOf(
  client: pg.ClientBase,
  folds: readonly string[],
): Promise<LiveNames> {
  const { rows } = await client.query<LiveName>(LIVE_NAMES('$1::text[]'), [
    [...new Set(folds)].map(encodeNul),
  ]);
  return liveNames(rows);
}

/**
 * `lockNames`, then the read of `liveNamesOf` as a statement of its own (a fresh snapshot,
 * taken once the locks are held), as SQL without parameters: it can follow other statements
 * in one round trip. Its result is the last of that round trip's (`namesAfterLocks`).
 */
export function lockAndReadSql(folds: readonly string[]): string {
  const list = [...new Set(folds)].map((fold) => pg.escapeLiteral(encodeNul(fold)));
  return `${nameLockSql(folds)}; ${LIVE_NAMES(`ARRAY[${list.join(',')}]::text[]`)}`;
}

/** The live names read by the last statement of a round trip that ended with `lockAndReadSql`. */
export function namesAfterLocks(results: unknown): LiveNames {
  const all = (Array.isArray(results) ? results : [results]) as pg.QueryResult<LiveName>[];
  return liveNames(all.at(-1)?.rows ?? []);
}

/** `lockNames` and `liveNamesOf` in one round trip. */
export async function lockAndReadNames(
  client: pg.ClientBase,
  folds: readonly string[],
): Promise<LiveNames> {
  return namesAfterLocks(await client.query(lockAndReadSql(folds)));
}
