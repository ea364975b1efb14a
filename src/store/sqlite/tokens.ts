import type Database from 'better-sqlite3';
import type { TermStore } from '../../glossary/term-store.ts';
import type { StoredToken, TokenInfo, TokenKind } from '../../glossary/tokens.ts';
import { gatherOne } from '../gathered-reads.ts';
import { guard } from './errors.ts';

interface TokenRow {
  name: string;
  lookup: string;
  hash: Buffer;
  kind: TokenKind;
  created_at: number;
}

type TokenMethods = Pick<
  TermStore,
  'addToken' | 'listTokens' | 'revokeToken' | 'findToken' | 'hasTokens'
>;

/** The access tokens' part of the store; `write` runs a write transaction, remembered. */
export function tokenMethods(db: Database.Database, write: <T>(work: () => T) => T): TokenMethods {
  const insert = db.prepare<[TokenRow]>(
    `INSERT INTO tokens (name, lookup, hash, kind, created_at)
     VALUES (@name, @lookup, @hash, @kind, @created_at) ON CONFLICT (name) DO NOTHING`,
  );
  const list = db.prepare<[], TokenRow>('SELECT * FROM tokens ORDER BY name');
  const remove = db.prepare<[string]>('DELETE FROM tokens WHERE name = ?');
  // One row whether or not a token has the key: the token's, or a decoy of the same shape.
  const find = db.prepare<[string], TokenRow & { found: 0 | 1 }>(
    `SELECT coalesce(t.name, '') AS name, k.lookup AS lookup,
            coalesce(t.hash, zeroblob(32)) AS hash, coalesce(t.kind, 'read-only') AS kind,
            coalesce(t.created_at, 0) AS created_at, t.name IS NOT NULL AS found
     FROM (SELECT ? AS lookup) AS k LEFT JOIN tokens AS t ON t.lookup = k.lookup`,
  );
  const any = db.prepare<[], 1>('SELECT 1 FROM tokens LIMIT 1').pluck();
  return {
    async addToken(token) {
      return write(() => (insert.run(tokenRow(token)).changes > 0 ? 'added' : 'name-taken'));
    },
    async listTokens() {
      return guard(() => list.all().map(tokenInfo));
    },
    async revokeToken(name) {
      return write(() => remove.run(name).changes > 0);
    },
    async findToken(lookup) {
      const row = guard(() => find.get(lookup)) as TokenRow & { found: 0 | 1 };
      return { ...tokenInfo(row), lookup: row.lookup, hash: row.hash, found: row.found === 1 };
    },
    // Asked by every request that needs access (writes, and reads with READ_ACCESS=token):
    // once a turn for all who asked (gathered-reads.ts).
    hasTokens: gatherOne(async () => guard(() => any.get() !== undefined)),
  };
}

function tokenRow(token: StoredToken): TokenRow {
  return {
    name: token.name,
    lookup: token.lookup,
    hash: token.hash,
    kind: token.kind,
    created_at: token.createdAt,
  };
}

function tokenInfo(row: TokenRow): TokenInfo {
  return { name: row.name, kind: row.kind, createdAt: row.created_at };
}
