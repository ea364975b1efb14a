import type pg from 'pg';
import { isUnavailable, rethrow } from './errors.ts';
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

/**
 * One write transaction, committed before it resolves. READ COMMITTED whatever the server's
 * default: after waiting for another transaction's id in `term_ids`, the insert must see that
 * transaction's commit (and report a conflict), not fail as a serialization error. `work`
 * tells whether it changed the glossary: then the revision moves (see `revisionSlot`) and the
 * change feed's watchers are notified. Every statement that draws from `term_revision` runs in
 * a `write` (the store's writes and bulk import; migrations at start-up run before any feed).
 */
export async function write<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<{ result: T; changed: boolean }>,
): Promise<T> {
  const client = await connect(pool);
  client.on('error', ignoreErrors);
  let broken = false;
  try {
    await client.query(BEGIN);
    const { result, changed } = await work(client);
    await client.query(changed ? bumpAndCommit(revisionSlot()) : 'COMMIT');
    return result;
  } catch (error) {
    broken = isUnavailable(error);
    if (!broken) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
    }
    rethrow(error, 'write failed');
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
