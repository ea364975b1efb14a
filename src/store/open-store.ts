import type { TermStore, Warn } from '../glossary/term-store.ts';
import { openPostgresStore } from './postgres/postgres-store.ts';
import { type BackupOutcome, backupSqlite } from './sqlite/backup.ts';
import { openSqliteStore, type SqliteSynchronous } from './sqlite/sqlite-store.ts';

/** Where the terms are kept: an SQLite file (or `:memory:`) or a PostgreSQL database. */
export type StoreLocation = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

export interface StoreOptions {
  database: StoreLocation;
  sqliteSynchronous: SqliteSynchronous;
  pgPoolSize: number;
  /** Where the store tells of failures it works around (see `Warn`); unset, they go untold. */
  warn?: Warn;
}

/** Chooses the backend once, at start-up, from where the terms are kept. */
export async function openStore(options: StoreOptions): Promise<TermStore> {
  const { database } = options;
  switch (database.kind) {
    case 'sqlite':
      return openSqliteStore(database.path, {
        synchronous: options.sqliteSynchronous,
        warn: options.warn,
      });
    case 'postgres':
      return openPostgresStore(database.url, { poolSize: options.pgPoolSize, warn: options.warn });
  }
}

/**
 * `glossary backup`: a consistent copy of a live SQLite store in a new file. PostgreSQL has
 * its own tools for that, which know its server better than this service can.
 */
export async function backupStore(database: StoreLocation, target: string): Promise<BackupOutcome> {
  if (database.kind === 'postgres') {
    throw new Error(
      'a PostgreSQL glossary is backed up with PostgreSQL\'s tools: pg_dump --format=custom --file=FILE "$DATABASE_URL" (see docs/operations.md)',
    );
  }
  if (database.path === ':memory:') throw new Error('an in-memory store has nothing to back up');
  return backupSqlite(database.path, target);
}
