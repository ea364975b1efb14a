/** Tokens as the glossary and its stores speak of them (see access.ts). */

export type TokenKind = 'write' | 'read-only';

export interface TokenInfo {
  name: string;
  kind: TokenKind;
  /** Milliseconds since the epoch. */
  createdAt: number;
}

export interface StoredToken extends TokenInfo {
  /** The public part of the token that finds its row. */
  lookup: string;
  /** SHA-256 of the whole token. */
  hash: Buffer;
}

/** A token as `findToken` answers it: the stored one (`found`), or the decoy. */
export interface FoundToken extends StoredToken {
  found: boolean;
}
