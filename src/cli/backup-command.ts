import { loadConfig } from '../config.ts';
import { backupStore } from '../store/open-store.ts';
import { CliError } from './cli-error.ts';

/** `glossary backup FILE`: one line on success, one line saying why not otherwise. */
export async function backup(file: string): Promise<void> {
  let outcome: Awaited<ReturnType<typeof backupStore>>;
  try {
    outcome = await backupStore(loadConfig(process.env).database, file);
  } catch (error) {
    throw new CliError(`cannot back up: ${(error as Error).message}`);
  }
  const megabytes = (outcome.bytes / 1024 / 1024).toFixed(1);
  process.stdout.write(`${file}: ${outcome.terms} terms, ${megabytes} MB, checked\n`);
}
