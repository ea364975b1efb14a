import type pg from 'pg';
import { SchemaError, StoreUnavailableError } from '../errors.ts';
import type { ImportOutcome, ListOptions, TermStore } from '../term-store.ts';
import { migrate, REVISION_SLOTS } from './migrations.ts';
import { describeError, isUnavailable, redactUrl, rethrow } from './pg-errors.ts';
import { connect, createPool, ignoreErrors, type PoolOptions } from './pool.ts';
import { LIST_CHUNK, streamRows } from './stream-rows.ts';
import { COLUMNS, filterSql, listQuery, type Row, termValues, toTerm } from './term-rows.ts';

/**
 * The shared store: one PostgreSQL database behind any number of stateless instances. Every
 * write is one short transaction (one statement for the terms, one for the revision, COMMIT),
 * so a 201/207 is sent only after COMMIT has returned, which with the default
 * `synchronous_commit = on` means the WAL is flushed.
 */

export type PostgresStoreOptions = PoolOptions;

/**
 * Bulk import in one statement, not a round trip per item. `term_ids` holds every distinct
 * stored id under a primary key: the bulk path claims its ids there with ON CONFLICT DO NOTHING
 * and creates only the terms whose id it claimed. When two requests (through any instances) claim the same new id at
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
  )
  INSERT INTO terms (id, term, term_folded, definition, category, see_also)
  SELECT id, term, term_folded, definition, category, see_also::jsonb
  FROM input JOIN claimed USING (id)
  ORDER BY ord
  RETURNING id`;

const CREATE = `
  WITH created AS (
    INSERT INTO terms (id, term, term_folded, definition, category, see_also)
    VALUES ($1, $2, $3, $4, $5, $6::jsonb)
    RETURNING id
  )
  INSERT INTO term_ids (id) SELECT id FROM created ON CONFLICT (id) DO NOTHING`;

/**
 * Ends a write transaction that changed the glossary. The revision counter is bumped by a
 * statement of its own, after every statement that may wait for another transaction (on an id
 * in `term_ids`): a transaction holding a counter row therefore waits for nothing but other
 * counter rows, each held by a transaction as far along, so the two kinds of wait cannot form
 * a cycle (a deadlock).
 */
const bumpAndCommit = (slot: number) =>
  `UPDATE glossary_revision SET value = value + 1 WHERE slot = ${slot}; COMMIT`;

export async function openPostgresStore(
  url: string,
  options: PostgresStoreOptions = {},
): Promise<TermStore> {
  const pool = createPool(url, options);
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

  // As in the SQLite store: a write that failed for lack of storage (read-only server after a
  // failover, disk full, lost connection) is remembered until a write succeeds, and while it
  // is, readiness probes with a real write instead of a read that may still work.
  let writeFailure: StoreUnavailableError | null = null;
  async function remember<T>(work: () => Promise<T>): Promise<T> {
    try {
      const result = await work();
      writeFailure = null;
      return result;
    } catch (error) {
      if (error instanceof StoreUnavailableError) writeFailure = error;
      throw error;
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
    // write transaction adds 1 to one of REVISION_SLOTS counter rows before it commits (see
    // `bumpAndCommit`): the sum grows with every commit and is read in one snapshot. Spreading the
    // increments over several rows keeps concurrent writers from queueing on one row lock.
    async revision() {
      const rows = await query<{ revision: number }>(
        'SELECT coalesce(sum(value), 0)::bigint AS revision FROM glossary_revision',
      );
      return rows[0]?.revision ?? 0;
    },
    async create(term) {
      await remember(() =>
        write(pool, async (client) => {
          await client.query(CREATE, termValues(term));
          return { result: undefined, changed: true };
        }),
      );
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
      const created = await remember(() =>
        write(pool, async (client) => {
          const { rows } = await client.query<{ id: number }>(IMPORT, columns);
          return { result: new Set(rows.map((row) => row.id)), changed: rows.length > 0 };
        }),
      );
      return terms.map((term): ImportOutcome => (created.has(term.id) ? 'created' : 'exists'));
    },
    async check() {
      await query('SELECT 1 FROM terms LIMIT 1');
      if (writeFailure) {
        await remember(() =>
          write(pool, async (client) => {
            await client.query('UPDATE glossary_revision SET value = value WHERE slot = $1', [
              revisionSlot(),
            ]);
            return { result: undefined, changed: false };
          }),
        );
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}

/**
 * One write transaction, committed before it resolves. READ COMMITTED whatever the server's
 * default: after waiting for another transaction's id in `term_ids`, the insert must see that
 * transaction's commit (and report a conflict), not fail as a serialization error.
 */
async function write<T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<{ result: T; changed: boolean }>,
): Promise<T> {
  const client = await connect(pool);
  client.on('error', ignoreErrors);
  let broken = false;
  try {
    await client.query('BEGIN ISOLATION LEVEL READ COMMITTED');
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

function revisionSlot(): number {
  return Math.floor(Math.random() * REVISION_SLOTS);
}
