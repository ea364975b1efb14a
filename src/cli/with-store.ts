import { loadConfig } from '../config.ts';
import type { TermStore } from '../glossary/term-store.ts';
import { openStore } from '../store/open-store.ts';
import { CliError } from './cli-error.ts';

/**
 * Runs `work` on the store the service uses (its DATABASE_URL, and its default,
 * ./data/glossary.db from the working directory), then closes it: the commands managed next to
 * the store (`token`, `webhook`), like `createuser`. No service need run.
 */
export async function withStore<T>(work: (store: TermStore) => Promise<T>): Promise<T> {
  let store: TermStore;
  try {
    const config = loadConfig(process.env);
    store = await openStore({ ...config, pgPoolSize: 1 });
  } catch (error) {
    // A bad DATABASE_URL, a missing server, a foreign file: one line, as the service says it.
    throw new CliError(`cannot open the store: ${(error as Error).message}`);
  }
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}
