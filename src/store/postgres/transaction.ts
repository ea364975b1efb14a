import type pg from 'pg';
import { isUnavailable, unavailable } from './errors.ts';
import { REVISION_SLOTS } from './migrations.ts';
import { connect, ignoreErrors } from './pool.ts';

/**
 * The channel every write that changed the glossary notifies in its commit (the NOTIFY is
 * delivered only if it commits), so the change feed's watchers in every instance wake
 * (change-watch.ts).
 */
export const CHANGES_CHANNEL = 'glossary_changes';

/**
 * Ends a write transaction that changed the glossary. The revision counter is bumped by a
 * statement of its own, after every statement that may wait for another transaction (on an id
 * in `term_ids`): a transaction holding a counter row therefore waits for nothing but other
 * counter rows, each held by a transaction as far along, so the two kinds of wait cannot form
 * a cycle (a deadlock).
 */
const bumpAndCommit = (slot: number) =>
  `UPDATE glossary_revision SET value = value + 1 WHERE slot = ${slot}; NOTIFY ${CHANGES_CHANNEL}; COMMIT`;

/**
 * Every write transaction takes its transaction id before it can draw a revision from
 * `term_revision`, in the same round trip as BEGIN: the change feed's horizon (feed.ts) rests
 * on a revision never being drawn by a transaction whose id was assigned after it.
 */
const BEGIN = 'BEGIN ISOLATION LEVEL READ COMMITTED; SELECT pg_current_xact_id()';

/** Failures of a write's COMMIT itself: whether it committed is not known (`commitUnknown`). */
const atCommit = new WeakSet<object>();

/**
 * Whether `error` came from the COMMIT of a write: the write may have committed (a connection
 * lost after the server committed) or not, so it must not be tried again as if it had not.
 */
export function commitUnknown(error: unknown): boolean {
  return typeof error === 'object' && error !== null && atCommit.has(error);
}

/**
 * One write transaction, committed before it resolves. READ COMMITTED whatever the server's
 * default: after waiting for another transaction's id in `term_ids`, the insert must see that
 * transaction's commit (and report a conflict), not fail as a serialization error. `work`
 * tells whether it changed the glossary: then the revision moves (see `revisionSlot`) and the
 * change feed's watchers are notified. Every statement that draws from `term_revision` runs in
 * a `write` (the store's writes and bulk import; migrations at start-up run before any feed).
 * `first`, statements without parameters (none drawing a revision), run in BEGIN's round trip,
 * after the xid is taken; `work` is given their results (BEGIN's and the xid's first).
 */
export async function write<T>(
  pool: pg.Pool,
  work: (
    client: pg.PoolClient,
    first: pg.QueryResult[],
  ) => Promise<{ result: T; changed: boolean }>,
  first = '',
): Promise<T> {
  const client = await connect(pool);
  client.on('error', ignoreErrors);
  let broken = false;
  let committing = false;
  try {
    const begun = (await client.query(first ? `${BEGIN}; ${first}` : BEGIN)) as unknown;
    const { result, changed } = await work(client, begun as pg.QueryResult[]);
    committing = true;
    await client.query(changed ? bumpAndCommit(revisionSlot()) : 'COMMIT');
    return result;
  } catch (error) {
    broken = isUnavailable(error);
    if (!broken) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
    }
    const thrown = isUnavailable(error) ? unavailable(error, 'write failed') : error;
    if (committing && typeof thrown === 'object' && thrown !== null) atCommit.add(thrown);
    throw thrown;
  } finally {
    client.off('error', ignoreErrors);
    client.release(broken);
  }
}

/** The smallest write that goes all the way: readiness probes with it after a failed write. */
export function probeWrite(pool: pg.Pool): Promise<void> {
  return write(pool, async (client) => {
    await client.query('UPDATE glossary_revision SET value = value WHERE slot = $1', [
      revisionSlot(),
    ]);
    return { result: undefined, changed: false };
  });
}

/**
 * The glossary's revision is not max(seq): sequence values are drawn before commit, so a write
 * holding a lower seq can commit after a higher one was read, and max(seq) would not change.
 * Instead each write transaction that changes the glossary adds 1 to one of REVISION_SLOTS
 * counter rows before it commits (`bumpAndCommit`): the sum grows with every commit and is
 * read in one snapshot. Spreading the increments over several rows keeps concurrent writers
 * from queueing on one row lock.
 */
function revisionSlot(): number {
  return Math.floor(Math.random() * REVISION_SLOTS);
}
