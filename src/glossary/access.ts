import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AccessStore, StoredToken, TokenInfo, TokenKind } from '../store/term-store.ts';

/**
 * Write tokens. A token is `glos_` + a 12-character lookup key + a 43-character secret
 * (base64url of 9 and 32 random bytes). The store keeps the token's name, kind, lookup key and
 * the SHA-256 of the whole token, never the token: it is shown once, when it is created. A
 * presented token is found by its lookup key and compared by hash in constant time, so the time
 * an answer takes tells nothing about how much of a guess was right.
 */

const PREFIX = 'glos_';
const LOOKUP_LENGTH = 12;
const SECRET_LENGTH = 43;
const TOKEN_LENGTH = PREFIX.length + LOOKUP_LENGTH + SECRET_LENGTH;
const TOKEN = /^glos_[A-Za-z0-9_-]{55}$/;
/** A name as `glossary token` takes it: shown in lists and in the history's `by`. */
export const TOKEN_NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

function hashOf(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** A new token for `name`: the secret to show once, and what the store keeps. */
export function newToken(
  name: string,
  kind: TokenKind,
  createdAt = Date.now(),
): { token: string; stored: StoredToken } {
  const token =
    PREFIX +
    randomBytes(9).toString('base64url') +
    randomBytes(32).toString('base64url').slice(0, SECRET_LENGTH);
  return {
    token,
    stored: {
      name,
      kind,
      createdAt,
      lookup: token.slice(PREFIX.length, PREFIX.length + LOOKUP_LENGTH),
      hash: hashOf(token),
    },
  };
}

/** Compared against when no token has the lookup key, so a miss costs what a hit does. */
const DECOY = hashOf(`${PREFIX}${'0'.repeat(LOOKUP_LENGTH + SECRET_LENGTH)}`);

/** The token's name and kind when `presented` is a token the store holds, else undefined. */
export async function verifyToken(
  store: AccessStore,
  presented: string,
): Promise<TokenInfo | undefined> {
  const hash = hashOf(presented);
  const stored =
    presented.length === TOKEN_LENGTH && TOKEN.test(presented)
      ? await store.findToken(presented.slice(PREFIX.length, PREFIX.length + LOOKUP_LENGTH))
      : undefined;
  const matches = timingSafeEqual(hash, stored?.hash ?? DECOY) && stored !== undefined;
  return matches
    ? { name: stored.name, kind: stored.kind, createdAt: stored.createdAt }
    : undefined;
}
