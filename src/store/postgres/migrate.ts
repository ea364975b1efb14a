import type pg from 'pg';
import { SchemaError } from '../errors.ts';
import { MIGRATIONS, type Migration } from './migrations.ts';

/**
 * How the migrations (migrations.ts) are applied: what is missing at start-up, one transaction
 * per step, refusing a database written by a newer release. Several instances starting at once
 * are safe: each migrates under the same session advisory lock, so the first one applies the
 * steps and the others find nothing left to do.
 */

/** Session advisory lock held while migrating (one-bigint key space: "GLOSMIGR"). */
export const MIGRATION_LOCK = 0x474c4f534d494752n;

/** What the server must be, from its settings: a UTF8 database on PostgreSQL 13 or newer. */
export function checkServer(
  server: { encoding: string; version: string; number: string } | undefined,
  where: string,
): void {
  if (server?.encoding !== 'UTF8') {
    throw new SchemaError(
      `${where} has encoding ${server?.encoding}; the glossary needs a UTF8 database`,
    );
  }
  // xid8 and pg_current_snapshot(), which the change log of counts needs (migration 5).
  if (Number(server.number) < 130000) {
    throw new SchemaError(
      `${where} runs PostgreSQL ${server.version}; the glossary needs PostgreSQL 13 or newer`,
    );
  }
}

export async function migrate(client: pg.ClientBase, where: string): Promise<void> {
  const settings = await client.query<{ encoding: string; version: string; number: string }>(
    `SELECT current_setting('server_encoding') AS encoding,
            current_setting('server_version') AS version,
            current_setting('server_version_num') AS number`,
  );
  checkServer(settings.rows[0], where);
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
        if (typeof next.step === 'string') await client.query(next.step);
        else await next.step(client);
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
): Promise<{ step: Migration; version: number } | undefined> {
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
  const step = MIGRATIONS[version];
  return step === undefined ? undefined : { step, version: version + 1 };
}
