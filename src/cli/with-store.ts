import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../config.ts';
import type { TermStore } from '../glossary/term-store.ts';
import { openStore, type StoreLocation, storeIsThere } from '../store/open-store.ts';
import { CliError } from './cli-error.ts';

export const CREATE_HELP =
  'start a new store where DATABASE_URL says (default ./data/glossary.db) if none is there; without it a missing SQLite file, or a PostgreSQL database without a glossary, is an error';

export interface WithStoreOptions {
  /** Create the SQLite file when it does not exist (`--create`); refused otherwise. */
  create?: boolean;
}

/**
 * Runs `work` on the store the service uses (its DATABASE_URL, and its default,
 * ./data/glossary.db from the working directory), then closes it: the commands managed next to
 * the store (`token`, `webhook`), like `createuser`. No service need run.
 *
 * Which store was opened is said on stderr first, and a store that is not there (a SQLite file
 * that does not exist, a PostgreSQL database without the glossary's tables) is not created
 * unless asked: run in the wrong folder or with the wrong DATABASE_URL, `token create` would
 * otherwise make a new empty store and print a token the service (reading the real one) refuses.
 */
export async function withStore<T>(
  work: (store: TermStore) => Promise<T>,
  options: WithStoreOptions = {},
): Promise<T> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    throw new CliError(`cannot open the store: ${(error as Error).message}`);
  }
  const { database } = config;
  if (database.kind === 'sqlite' && database.path !== ':memory:' && !options.create) {
    refuseMissingFile(database.path);
  }
  process.stderr.write(`glossary: store: ${describeStore(database)}\n`);
  let store: TermStore;
  try {
    if (database.kind === 'postgres' && !options.create && !(await storeIsThere(database))) {
      throw new CliError(
        `no glossary in ${describeStore(database)}: the database has no glossary tables; set DATABASE_URL as the service has it (or give --create to start a new glossary there)`,
      );
    }
    store = await openStore({ ...config, pgPoolSize: 1 });
  } catch (error) {
    if (error instanceof CliError) throw error;
    // A bad DATABASE_URL, a missing server, a foreign file: one line, as the service says it.
    throw new CliError(`cannot open the store: ${(error as Error).message}`);
  }
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}

/** The one-line refusal for a SQLite file that is not there, naming where it was looked for. */
export function refuseMissingFile(file: string): void {
  const absolute = path.resolve(file);
  if (fs.existsSync(absolute)) return;
  throw new CliError(
    `no glossary store at ${absolute}; run this in the service's folder or set DATABASE_URL as the service has it (or give --create to start a new store there)`,
  );
}

/**
 * The store in words a person can check: the absolute SQLite file, or PostgreSQL's
 * host:port/database (never the user name or password of the URL).
 */
export function describeStore(database: StoreLocation): string {
  if (database.kind === 'sqlite') {
    return database.path === ':memory:'
      ? 'SQLite in memory (nothing is kept)'
      : `SQLite ${path.resolve(database.path)}`;
  }
  try {
    const url = new URL(database.url);
    // A socket folder may be given as ?host=/run/postgresql instead of in the authority.
    const host = url.hostname || url.searchParams.get('host') || 'localhost';
    const name = decodeURIComponent(url.pathname.slice(1)) || '(the default database)';
    return `PostgreSQL ${host}:${url.port || '5432'}/${name}`;
  } catch {
    return 'PostgreSQL (DATABASE_URL)';
  }
}
