import type { Config } from '../config.ts';
import { openPostgresStore } from './postgres/postgres-store.ts';
import { openSqliteStore } from './sqlite/sqlite-store.ts';
import type { TermStore } from './term-store.ts';

/** Chooses the backend once, at start-up, from DATABASE_URL. */
export async function openStore(
  config: Pick<Config, 'database' | 'sqliteSynchronous' | 'pgPoolSize'>,
): Promise<TermStore> {
  const { database } = config;
  switch (database.kind) {
    case 'sqlite':
      return openSqliteStore(database.path, { synchronous: config.sqliteSynchronous });
    case 'postgres':
      return openPostgresStore(database.url, { poolSize: config.pgPoolSize });
  }
}
