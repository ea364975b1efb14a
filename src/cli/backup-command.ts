import path from 'node:path';
import { loadConfig } from '../config.ts';
import { backupStore, type StoreLocation } from '../store/open-store.ts';
import { CliError } from './cli-error.ts';
import { describeStore } from './with-store.ts';

/**
 * `glossary backup FILE`: which store was copied on stderr and one line on stdout on success,
 * one line saying why not otherwise. The SQLite file is named absolute, so a run in the wrong
 * folder says where it looked.
 */
export async function backup(file: string): Promise<void> {
  let outcome: Awaited<ReturnType<typeof backupStore>>;
  let database: StoreLocation;
  try {
    database = loadConfig(process.env).database;
    if (database.kind === 'sqlite' && database.path !== ':memory:') {
      database = { kind: 'sqlite', path: path.resolve(database.path) };
    }
    outcome = await backupStore(database, file);
  } catch (error) {
    throw new CliError(`cannot back up: ${(error as Error).message}`);
  }
  const megabytes = (outcome.bytes / 1024 / 1024).toFixed(1);
  process.stderr.write(`glossary: store: ${describeStore(database)}\n`);
  process.stdout.write(`${file}: ${outcome.terms} terms, ${megabytes} MB, checked\n`);
}
