import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AccessStore } from './term-store.ts';
import type { StoredToken, TokenInfo, TokenKind } from './tokens.ts';

/**
 * Write tokens. A token is `glos_` + a 12-character lookup key + a 43-character secret
 * (base64url of 9 and 32 random bytes). The store keeps the token's name, kind, lookup key and
 * the SHA-256 of the whole token, never the token: it is shown once, when it is created. A
 * presented token is found by its lookup key and compared by hash in constant time (see
 * verifyToken).
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

/**
 * The token's name and kind when `presented` is a token the store holds, else undefined. A
 * well-formed token is looked up and compared in the same way whether or not its lookup key
 * exists: the store answers one row either way (a decoy with a zero hash when no token has the
 * key), and its hash is compared with the presented one's in constant time; only then does
 * `found` count. So the time of a refusal tells neither how much of a guess was right nor
 * whether its lookup key exists. A token of the wrong form is refused without a lookup: its
 * form is no secret.
 */
export async function verifyToken(
  store: AccessStore,
  presented: string,
): Promise<TokenInfo | undefined> {
  const hash = hashOf(presented);
  if (presented.length !== TOKEN_LENGTH || !TOKEN.test(presented)) return undefined;
  const stored = await store.findToken(
    presented.slice(PREFIX.length, PREFIX.length + LOOKUP_LENGTH),
  );
  const matches = timingSafeEqual(hash, stored.hash) && stored.found;
  return matches
    ? { name: stored.name, kind: stored.kind, createdAt: stored.createdAt }
    : undefined;
}
