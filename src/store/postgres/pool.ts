import pg from 'pg';
import { unavailable } from './errors.ts';

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
  pool.on('connect', (client) => client.on('error', () => undefined));
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
