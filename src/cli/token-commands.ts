import { loadConfig } from '../config.ts';
import { newToken } from '../glossary/access.ts';
import type { TermStore } from '../glossary/term-store.ts';
import type { TokenKind } from '../glossary/tokens.ts';
import { openStore } from '../store/open-store.ts';
import { CliError } from './cli-error.ts';

/**
 * `glossary token create | list | revoke`: managed next to the store, like `createuser`, with
 * the service's own DATABASE_URL (and its default, ./data/glossary.db from the working
 * directory). A process that can open the store may manage its tokens; no service need run.
 */

async function withStore<T>(work: (store: TermStore) => Promise<T>): Promise<T> {
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

const OPEN = 'writes are open to anyone who can reach the service';

export async function createToken(name: string, kind: TokenKind): Promise<void> {
  const { token, stored } = newToken(name, kind);
  const outcome = await withStore((store) => store.addToken(stored));
  if (outcome === 'name-taken') {
    throw new CliError(
      `a token named '${name}' exists already; revoke it first or choose another name`,
    );
  }
  // Only the token on stdout, so `TOKEN=$(glossary token create ci)` works.
  process.stdout.write(`${token}\n`);
  process.stderr.write(
    `glossary: ${kind} token '${name}' created; it is shown only this once, keep it secret\n`,
  );
}

export async function listTokens(): Promise<void> {
  const tokens = await withStore((store) => store.listTokens());
  if (tokens.length === 0) {
    process.stdout.write(`No tokens: ${OPEN}.\n`);
    return;
  }
  const rows = tokens.map((token) => [
    token.name,
    token.kind,
    new Date(token.createdAt).toISOString(),
  ]);
  const header = ['NAME', 'KIND', 'CREATED'];
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => row[i]?.length ?? 0)),
  );
  for (const row of [header, ...rows]) {
    process.stdout.write(
      `${row
        .map((cell, i) => cell.padEnd(widths[i] ?? 0))
        .join('  ')
        .trimEnd()}\n`,
    );
  }
}

export async function revokeToken(name: string): Promise<void> {
  const { revoked, left } = await withStore(async (store) => ({
    revoked: await store.revokeToken(name),
    left: await store.hasTokens(),
  }));
  if (!revoked) throw new CliError(`no token is named '${name}'`);
  process.stdout.write(`Token '${name}' revoked.\n`);
  if (!left) process.stderr.write(`glossary: warning: no token is left: ${OPEN} again\n`);
}
