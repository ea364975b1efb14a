import pg from 'pg';
import { describeError } from './errors.ts';

/**
 * Whether this database holds a glossary already (its `schema_version` table), asked without
 * creating anything: the commands managed next to the store refuse to set up a glossary in a
 * database that has none unless asked, as they refuse to create a SQLite file.
 */
export async function holdsGlossary(url: string): Promise<boolean> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: 5000,
    application_name: 'glossary',
  });
  // A connection the server drops while this waits would otherwise crash the process.
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query<{ present: boolean }>(
      `SELECT to_regclass('schema_version') IS NOT NULL AS present`,
    );
    return rows[0]?.present === true;
  } catch (error) {
    throw new Error(describeError(error), { cause: error });
  } finally {
    await client.end().catch(() => undefined);
  }
}
