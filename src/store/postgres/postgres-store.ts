import pg from 'pg';
import type { Category, Term } from '../../schemas/term.ts';
import { foldCase } from '../../text/fold-case.ts';
import { SchemaError } from '../sqlite/migrations.ts';
import type { ImportOutcome, ListOptions, SortKey, TermFilter, TermStore } from '../term-store.ts';
import { migrate, REVISION_SLOTS } from './migrations.ts';
import { decodeNul, encodeNul } from './nul-text.ts';
import { describeError, isUnavailable, redactUrl, rethrow, unavailable } from './pg-errors.ts';

/**
 * The shared store: one PostgreSQL database behind any number of stateless instances. Every
 * write is a single statement (its own transaction), so a 201/207 is sent only after COMMIT
 * has returned, which with the default `synchronous_commit = on` means the WAL is flushed.
 */

export interface PostgresStoreOptions {
  poolSize?: number;
  /** How long to wait for a connection (also for a free one when the pool is busy). */
  connectionTimeoutMs?: number;
}

interface Row {
  id: number;
  term: string;
  definition: string;
  category: Category;
  see_also: number[];
}

const LIST_CHUNK = 500;
/** How long a streaming list may wait for its client between two chunks. */
const LIST_STALL_LIMIT = '60s';
const COLUMNS = 'id, term, definition, category, see_also';
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

/** Each order is a key plus `seq` (creation order) as the tie-breaker, as in SQLite. */
const ORDER_BY: Record<SortKey | 'created', string> = {
  created: 'seq',
  term: 'term_folded, seq',
  '-term': 'term_folded DESC, seq',
  id: 'id, seq',
  '-id': 'id DESC, seq',
};

/**
 * Bulk import in one statement. `term_ids` holds every distinct stored id under a primary key:
 * the bulk path claims its ids there with ON CONFLICT DO NOTHING and creates only the terms
 * whose id it claimed. When two requests (through any instances) claim the same new id at
 * once, the unique index makes the second wait for the first to commit and then report a
 * conflict, so the id is created exactly once and the other request answers "already exists".
 * Ids are claimed in ascending order, so two batches overlapping in several ids always wait in
 * the same order and cannot deadlock. POST /terms records its id there too (without checking),
 * so a bulk request also sees ids created by POST /terms.
 */
const IMPORT = `
  WITH input AS (
    SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[])
      WITH ORDINALITY AS t (id, term, term_folded, definition, category, see_also, ord)
  ), claimed AS (
    INSERT INTO term_ids (id) SELECT id FROM input ORDER BY id
    ON CONFLICT (id) DO NOTHING
    RETURNING id
  ), created AS (
    INSERT INTO terms (id, term, term_folded, definition, category, see_also)
    SELECT id, term, term_folded, definition, category, see_also::jsonb
    FROM input JOIN claimed USING (id)
    ORDER BY ord
    RETURNING id
  ), bumped AS (
    UPDATE glossary_revision SET value = value + 1
    WHERE slot = $7 AND EXISTS (SELECT 1 FROM created)
  )
  SELECT id FROM created`;

const CREATE = `
  WITH created AS (
    INSERT INTO terms (id, term, term_folded, definition, category, see_also)
    VALUES ($1, $2, $3, $4, $5, $6::jsonb)
    RETURNING id
  ), recorded AS (
    INSERT INTO term_ids (id) SELECT id FROM created ON CONFLICT (id) DO NOTHING
  )
  UPDATE glossary_revision SET value = value + 1 WHERE slot = $7`;

export async function openPostgresStore(
  url: string,
  options: PostgresStoreOptions = {},
): Promise<TermStore> {
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
  const where = redactUrl(url);
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    await pool.end();
    throw new Error(`cannot connect to PostgreSQL at ${where}: ${describeError(error)}`, {
      cause: error,
    });
  }
  try {
    await migrate(client, where);
    client.release();
  } catch (error) {
    client.release(true);
    await pool.end();
    if (error instanceof SchemaError) throw error;
    throw new Error(`cannot prepare the schema in ${where}: ${describeError(error)}`, {
      cause: error,
    });
  }
  return postgresStore(pool);
}

function postgresStore(pool: pg.Pool): TermStore {
  let closed = false;

  async function query<R extends pg.QueryResultRow>(
    text: string,
    values: unknown[] = [],
  ): Promise<R[]> {
    const client = await connect(pool);
    try {
      const { rows } = await client.query<R>(text, values);
      client.release();
      return rows;
    } catch (error) {
      client.release(isUnavailable(error));
      rethrow(error, 'query failed');
    }
  }

  return {
    backend: 'postgres',
    async get(id) {
      const rows = await query<Row>(
        `SELECT ${COLUMNS} FROM terms WHERE id = $1 ORDER BY seq LIMIT 1`,
        [id],
      );
      return rows[0] && toTerm(rows[0]);
    },
    async *list(filter, options: ListOptions = {}) {
      const { text, values } = listQuery(filter, options);
      if (options.limit !== undefined && options.limit <= LIST_CHUNK) {
        // One statement is one snapshot: no cursor needed.
        const rows = await query<Row>(text, values);
        if (rows.length > 0) yield rows.map(toTerm);
        return;
      }
      yield* streamRows(pool, text, values);
    },
    async count(filter) {
      const { where, values } = filterSql(filter);
      const rows = await query<{ count: number }>(
        `SELECT count(*) AS count FROM terms ${where}`,
        values,
      );
      return rows[0]?.count ?? 0;
    },
    // Not max(seq): sequence values are drawn before commit, so a write holding a lower seq can
    // commit after a higher one has been read, and max(seq) would not change. Instead each
    // write transaction adds 1 to one of REVISION_SLOTS counter rows, in the same statement as
    // its insert: the sum grows with every commit and is read in one snapshot. Spreading the
    // increments over several rows keeps concurrent writers from queueing on one row lock.
    async revision() {
      const rows = await query<{ revision: number }>(
        'SELECT coalesce(sum(value), 0)::bigint AS revision FROM glossary_revision',
      );
      return rows[0]?.revision ?? 0;
    },
    async create(term) {
      await query(CREATE, [...termValues(term), revisionSlot()]);
    },
    async importMany(terms) {
      if (terms.length === 0) return [];
      const columns: [number[], string[], string[], string[], string[], string[]] = [
        [],
        [],
        [],
        [],
        [],
        [],
      ];
      for (const term of terms) {
        termValues(term).forEach((value, i) => {
          (columns[i] as unknown[]).push(value);
        });
      }
      const rows = await query<{ id: number }>(IMPORT, [...columns, revisionSlot()]);
      const created = new Set(rows.map((row) => row.id));
      return terms.map((term): ImportOutcome => (created.has(term.id) ? 'created' : 'exists'));
    },
    async check() {
      await query('SELECT 1 FROM terms LIMIT 1');
    },
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}

/**
 * A long list as one consistent snapshot, read in chunks through a server-side cursor in a
 * read-only REPEATABLE READ transaction: terms committed meanwhile (even with a lower `seq`,
 * since sequence values are drawn before commit) can neither appear half-way nor be skipped.
 * When the consumer stops early (the client went away), `finally` ends the transaction and
 * returns the connection to the pool.
 */
async function* streamRows(pool: pg.Pool, text: string, values: unknown[]): AsyncGenerator<Term[]> {
  const client = await connect(pool);
  // The connection can drop while the consumer is busy and no statement is running; the next
  // statement then fails and reports it, so the event itself needs no handling.
  const ignore = () => undefined;
  client.on('error', ignore);
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
    client.off('error', ignore);
    client.release(broken);
  }
}

/**
 * A pooled connection. Whatever prevents connecting (server down, not accepting connections,
 * credentials revoked, database gone, pool exhausted until the timeout) is unavailability.
 */
async function connect(pool: pg.Pool): Promise<pg.PoolClient> {
  try {
    return await pool.connect();
  } catch (error) {
    throw unavailable(error, 'connect failed');
  }
}

function listQuery(filter: TermFilter, options: ListOptions): { text: string; values: unknown[] } {
  const { where, values } = filterSql(filter);
  let text = `SELECT ${COLUMNS} FROM terms ${where} ORDER BY ${ORDER_BY[options.sort ?? 'created']}`;
  if (options.limit !== undefined) {
    values.push(options.limit);
    text += ` LIMIT $${values.length}`;
  }
  if (options.offset) {
    values.push(options.offset);
    text += ` OFFSET $${values.length}`;
  }
  return { text, values };
}

/**
 * A literal, case-insensitive substring: both sides folded with `foldCase` (as SQLite does), the
 * pattern's LIKE metacharacters escaped. The trigram index serves patterns of 3 or more
 * characters; shorter ones are answered by a scan, with the same results.
 */
function filterSql(filter: TermFilter): { where: string; values: unknown[] } {
  const clauses: string[] = [];
  const values: unknown[] = [];
  if (filter.category) {
    values.push(filter.category);
    clauses.push(`category = $${values.length}`);
  }
  if (filter.search) {
    values.push(`%${escapeLike(encodeNul(foldCase(filter.search)))}%`);
    clauses.push(`term_folded LIKE $${values.length}`);
  }
  return { where: clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : '', values };
}

export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

function termValues(term: Term): [number, string, string, string, string, string] {
  return [
    term.id,
    encodeNul(term.term),
    encodeNul(foldCase(term.term)),
    encodeNul(term.definition),
    term.category,
    JSON.stringify(term.see_also),
  ];
}

function revisionSlot(): number {
  return Math.floor(Math.random() * REVISION_SLOTS);
}

function toTerm(row: Row): Term {
  return {
    id: row.id,
    term: decodeNul(row.term),
    definition: decodeNul(row.definition),
    category: row.category,
    see_also: row.see_also,
  };
}
