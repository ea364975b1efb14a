import type { TermStore, Warn } from '../glossary/term-store.ts';
import type { SqliteSynchronous, StoreLocation } from './location.ts';
import type { BackupOutcome } from './sqlite/backup.ts';

export type { StoreLocation } from './location.ts';

export interface StoreOptions {
  database: StoreLocation;
  sqliteSynchronous: SqliteSynchronous;
  pgPoolSize: number;
  /** Where the store tells of failures it works around (see `Warn`); unset, they go untold. */
  warn?: Warn;
  /**
   * False when the SQLite file was checked just before by this service (a worker, whose primary
   * checked it before starting the workers): not read through again. True by default.
   */
  checkFile?: boolean;
}

/**
 * Chooses the backend once, at start-up, from where the terms are kept. Each backend is
 * loaded only when chosen: a PostgreSQL deployment never loads the SQLite store, nor the
 * SQLite one the PostgreSQL driver.
 */
export async function openStore(options: StoreOptions): Promise<TermStore> {
  const { database } = options;
  switch (database.kind) {
    case 'sqlite': {
      const { openCheckedSqliteStore, openSqliteStore } = await import('./sqlite/store.ts');
      const sqliteOptions = { synchronous: options.sqliteSynchronous, warn: options.warn };
      return options.checkFile === false
        ? openSqliteStore(database.path, { ...sqliteOptions, inspected: true })
        : openCheckedSqliteStore(database.path, sqliteOptions);
    }
    case 'postgres': {
      const { openPostgresStore } = await import('./postgres/store.ts');
      return openPostgresStore(database.url, { poolSize: options.pgPoolSize, warn: options.warn });
    }
  }
}

/**
 * Whether a glossary is kept where `database` says, without creating one: the SQLite file
 * exists, or the PostgreSQL database holds the glossary's tables. An in-memory store is always
 * new. Rejects when the PostgreSQL server cannot be reached.
 */
export async function storeIsThere(database: StoreLocation): Promise<boolean> {
  if (database.kind === 'sqlite') {
    const { existsSync } = await import('node:fs');
    return database.path !== ':memory:' && existsSync(database.path);
  }
  const { holdsGlossary } = await import('./postgres/probe.ts');
  return holdsGlossary(database.url);
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
  const { backupSqlite } = await import('./sqlite/backup.ts');
  return backupSqlite(database.path, target);
}
