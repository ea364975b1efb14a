import { openPostgresStore } from './postgres/postgres-store.ts';
import { openSqliteStore, type SqliteSynchronous } from './sqlite/sqlite-store.ts';
import type { TermStore } from './term-store.ts';

/** Where the terms are kept: an SQLite file (or `:memory:`) or a PostgreSQL database. */
export type StoreLocation = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

export interface StoreOptions {
  database: StoreLocation;
  sqliteSynchronous: SqliteSynchronous;
  pgPoolSize: number;
}

/** Chooses the backend once, at start-up, from where the terms are kept. */
export async function openStore(options: StoreOptions): Promise<TermStore> {
  const { database } = options;
  switch (database.kind) {
    case 'sqlite':
      return openSqliteStore(database.path, { synchronous: options.sqliteSynchronous });
    case 'postgres':
      return openPostgresStore(database.url, { poolSize: options.pgPoolSize });
  }
}
