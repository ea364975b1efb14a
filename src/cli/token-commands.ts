import { newToken } from '../glossary/access.ts';
import type { TokenKind } from '../glossary/tokens.ts';
import { CliError } from './cli-error.ts';
import { printTable } from './table.ts';
import { withStore } from './with-store.ts';

/**
 * `glossary token create | list | revoke`: managed next to the store (with-store.ts). A process
 * that can open the store may manage its tokens; no service need run.
 */

const OPEN = 'writes are open to anyone who can reach the service';

export async function createToken(
  name: string,
  kind: TokenKind,
  { create = false } = {},
): Promise<void> {
  const { token, stored } = newToken(name, kind);
  const outcome = await withStore((store) => store.addToken(stored), { create });
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
  printTable(['NAME', 'KIND', 'CREATED'], rows);
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
