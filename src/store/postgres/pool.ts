import pg from 'pg';
import { isUnavailable, rethrow, unavailable } from './errors.ts';

/** The connection pool and how connections are taken from it. */

export interface PoolOptions {
  poolSize?: number;
  /** How long to wait for a connection (also for a free one when the pool is busy). */
  connectionTimeoutMs?: number;
}

const INT8 = 20;

/**
 * bigint columns (`id`, `seq`, counts) as JS numbers rather than strings: ids are checked to be
 * within ±(2^53 − 1) and the others are row counts, so Number is exact. `see_also` is jsonb,
 * whose numbers node-postgres already parses as numbers.
 */
const TYPES = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8 && format !== 'binary'
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

export function createPool(url: string, options: PoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? 5000,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
    application_name: 'glossary',
    types: TYPES,
  });
  // An idle pooled connection that the server drops (restart, failover, terminate) is reported
  // here; without a listener it would crash the process. The pool discards that client and
  // opens a new one on the next request, so there is nothing else to do.
  pool.on('error', () => undefined);
  // A connection dropped while it is checked out but between statements (terminated by an
  // administrator, say) reports on the client, not the pool: without a listener for the whole
  // checkout (reads included) that too crashes the process. Its next statement then fails, and
  // the client is released as broken.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
    // No JIT compilation: the service's statements are short, and a first page's statement
    // over several ranking levels at 1,000,000 terms has an estimated cost above
    // `jit_above_cost`, so PostgreSQL spent 50-90 ms compiling it for 0.7 ms of execution
    // (docs/performance.md). Search indexes' pending lists of 64 kB at most: every search
    // reads a list in full, and the default 4 MB made a selective search several times slower
    // after writes (a bulk import raises it for its own transaction, upkeep.ts). Queued before
    // whatever the connection was taken for, as one statement (pg deprecates queueing a second
    // before the caller's); both settings exist on every server the service supports (13 on),
    // and one refused would only leave the connection compiling or searching slower.
    client
      .query(
        "SELECT set_config('jit', 'off', false), set_config('gin_pending_list_limit', '64kB', false)",
      )
      .catch(() => undefined);
  });
  return pool;
}

/**
 * A pooled connection. Whatever prevents connecting (server down, not accepting connections,
 * credentials revoked, database gone, pool exhausted until the timeout) is unavailability.
 */
export async function connect(pool: pg.Pool): Promise<pg.PoolClient> {
  try {
    return await pool.connect();
  } catch (error) {
    throw unavailable(error, 'connect failed');
  }
}

/**
 * For a checked-out connection: one that drops while no statement runs (between two chunks of
 * a list, say) emits 'error', which would crash the process unheard. The next statement fails
 * and reports it, so the event itself needs no handling.
 */
export const ignoreErrors = () => undefined;

/**
 * One statement on a pooled connection. `name` makes it a prepared statement on each
 * connection (parsed once, its plan kept): for the few fixed, hot statements whose plan does
 * not depend on their values (a read by id, the revision), not for searches.
 */
export async function query<R extends pg.QueryResultRow>(
  pool: pg.Pool,
  text: string,
  values: unknown[] = [],
  name?: string,
): Promise<R[]> {
  const client = await connect(pool);
  try {
    const { rows } = await client.query<R>(name ? { name, text, values } : { text, values });
    client.release();
    return rows;
  } catch (error) {
    client.release(isUnavailable(error));
    rethrow(error, 'query failed');
  }
}

/** `work` on a pooled connection; its failure said as the store's (`where`: what failed). */
export async function withClient<T>(
  pool: pg.Pool,
  where: string,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await connect(pool);
  try {
    const result = await work(client);
    client.release();
    return result;
  } catch (error) {
    client.release(isUnavailable(error));
    rethrow(error, where);
  }
}
