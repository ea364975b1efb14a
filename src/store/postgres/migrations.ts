import type pg from 'pg';
import { CATEGORIES, MAX_ID } from '../../glossary/term.ts';
import { SchemaError } from '../errors.ts';

/**
 * The PostgreSQL schema, as numbered migrations kept in the one-row table `schema_version`. A
 * release only ever appends to this list; the service applies what is missing at start-up, one
 * transaction per step, and refuses a database written by a newer release. Several instances
 * starting at once are safe: each migrates under the same session advisory lock, so the first
 * one applies the steps and the others find nothing left to do.
 */

/** Session advisory lock held while migrating (one-bigint key space: "GLOSMIGR"). */
export const MIGRATION_LOCK = 0x474c4f534d494752n;

const categories = CATEGORIES.map((c) => `'${c}'`).join(', ');

export const MIGRATIONS: readonly string[] = [
  // 1: terms, in creation order. `seq` is the creation order itself, drawn from one database
  // sequence for every instance; `id` is the client's and may repeat (POST /terms does not
  // check). `term_folded` is `foldCase(term)`, computed by the service exactly as for SQLite,
  // and collated "C" (byte order of UTF-8) so that sort=term orders as SQLite's BINARY does.
  // `term_ids` holds each distinct stored id once: its primary key is what makes the bulk path
  // create an id exactly once across concurrent requests and instances (see `importMany`).
  // `glossary_revision` holds write counters (see `revision()` in postgres-store.ts).
  `CREATE EXTENSION IF NOT EXISTS pg_trgm;
   CREATE TABLE terms (
     seq         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     id          bigint NOT NULL CHECK (id BETWEEN -${MAX_ID} AND ${MAX_ID}),
     term        text   NOT NULL,
     term_folded text   COLLATE "C" NOT NULL,
     definition  text   NOT NULL,
     category    text   NOT NULL CHECK (category IN (${categories})),
     see_also    jsonb  NOT NULL CHECK (jsonb_typeof(see_also) = 'array')
   );
   CREATE INDEX terms_by_id ON terms (id, seq);
   CREATE INDEX terms_by_category ON terms (category, seq);
   CREATE INDEX terms_by_term ON terms (term_folded, seq);
   CREATE INDEX terms_term_trigrams ON terms USING gin (term_folded gin_trgm_ops);
   CREATE TABLE term_ids (
     id bigint PRIMARY KEY
   );
   CREATE TABLE glossary_revision (
     slot  smallint PRIMARY KEY,
     value bigint   NOT NULL
   );
   INSERT INTO glossary_revision (slot, value) SELECT slot, 0 FROM generate_series(0, 15) slot;`,
];

/** How many rows `glossary_revision` has; a write bumps one of them. */
export const REVISION_SLOTS = 16;

export async function migrate(client: pg.ClientBase, where: string): Promise<void> {
  const encoding = await client.query<{ server_encoding: string }>('SHOW server_encoding');
  if (encoding.rows[0]?.server_encoding !== 'UTF8') {
    throw new SchemaError(
      `${where} has encoding ${encoding.rows[0]?.server_encoding}; the glossary needs a UTF8 database`,
    );
  }
  await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK.toString()]);
  try {
    for (;;) {
      await client.query('BEGIN');
      try {
        const next = await nextStep(client, where);
        if (next === undefined) {
          await client.query('COMMIT');
          return;
        }
        await client.query(next.sql);
        await client.query('UPDATE schema_version SET version = $1', [next.version]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK.toString()]);
  }
}

async function nextStep(
  client: pg.ClientBase,
  where: string,
): Promise<{ sql: string; version: number } | undefined> {
  const tables = await client.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables
     WHERE table_schema = current_schema() AND table_name IN ('schema_version', 'terms')`,
  );
  const names = new Set(tables.rows.map((row) => row.name));
  if (!names.has('schema_version')) {
    if (names.has('terms')) {
      throw new SchemaError(`${where} has a table "terms" that this service did not create`);
    }
    await client.query('CREATE TABLE schema_version (version integer NOT NULL)');
    await client.query('INSERT INTO schema_version (version) VALUES (0)');
  }
  const current = await client.query<{ version: number }>('SELECT version FROM schema_version');
  const version = current.rows[0]?.version ?? 0;
  if (version > MIGRATIONS.length) {
    throw new SchemaError(
      `${where} has schema version ${version}, newer than this release knows (${MIGRATIONS.length}); run a newer release`,
    );
  }
  const sql = MIGRATIONS[version];
  return sql === undefined ? undefined : { sql, version: version + 1 };
}
