import type pg from 'pg';
import type { Term } from '../../glossary/term.ts';
import { LIST_CHUNK } from '../list-chunks.ts';
import { isUnavailable, rethrow } from './errors.ts';
import { connect, ignoreErrors } from './pool.ts';
import { type Row, toTerm } from './term-rows.ts';

/** How long a streaming list may wait for its client between two chunks. */
const LIST_STALL_LIMIT = '60s';

/**
 * A long list as one consistent snapshot, read in chunks through a server-side cursor in a
 * read-only REPEATABLE READ transaction: terms committed meanwhile (even with a lower `seq`,
 * since sequence values are drawn before commit) can neither appear half-way nor be skipped.
 * When the consumer stops early (the client went away), `finally` ends the transaction and
 * returns the connection to the pool.
 */
export async function* streamRows(
  pool: pg.Pool,
  text: string,
  values: unknown[],
): AsyncGenerator<Term[]> {
  const client = await connect(pool);
  client.on('error', ignoreErrors);
  let finished = false;
  let broken = false;
  try {
    // cursor_tuple_fraction = 1: the whole result is read, so plan for total time, not for the
    // first rows (which would favour walking the creation-order index past non-matching rows).
    // A client that stops reading stops the fetching too (back-pressure) and would hold this
    // connection and snapshot for ever: past LIST_STALL_LIMIT the server ends the session, the
    // list fails and the pool replaces the connection.
    await client.query(
      `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY;
       SET LOCAL cursor_tuple_fraction = 1;
       SET LOCAL idle_in_transaction_session_timeout = '${LIST_STALL_LIMIT}'`,
    );
    await client.query(`DECLARE terms_cursor NO SCROLL CURSOR FOR ${text}`, values);
    for (;;) {
      const { rows } = await client.query<Row>(`FETCH ${LIST_CHUNK} FROM terms_cursor`);
      if (rows.length > 0) yield rows.map(toTerm);
      if (rows.length < LIST_CHUNK) break;
    }
    await client.query('COMMIT');
    finished = true;
  } catch (error) {
    broken = isUnavailable(error);
    rethrow(error, 'list failed');
  } finally {
    if (!finished && !broken) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
    }
    client.off('error', ignoreErrors);
    client.release(broken);
  }
}
