import type pg from 'pg';
import type { TermStore } from '../../glossary/term-store.ts';
import type { FoundToken, StoredToken } from '../../glossary/tokens.ts';
import { gatherOne } from '../gathered-reads.ts';
import { query } from './pool.ts';
import { write } from './transaction.ts';

type TokenMethods = Pick<
  TermStore,
  'addToken' | 'listTokens' | 'revokeToken' | 'findToken' | 'hasTokens'
>;

const TOKEN_COLUMNS = 'name, lookup, hash, kind, created_at AS "createdAt"';

/** The access tokens' part of the store; `remember` keeps a write's storage failure. */
export function tokenMethods(
  pool: pg.Pool,
  remember: <T>(work: () => Promise<T>) => Promise<T>,
): TokenMethods {
  return {
    async addToken(token) {
      return remember(() =>
        write(pool, async (client) => {
          const { rowCount } = await client.query(
            `INSERT INTO tokens (name, lookup, hash, kind, created_at) VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (name) DO NOTHING`,
            [token.name, token.lookup, token.hash, token.kind, token.createdAt],
          );
          return {
            result: rowCount ? ('added' as const) : ('name-taken' as const),
            changed: false,
          };
        }),
      );
    },
    async listTokens() {
      const rows = await query<StoredToken>(
        pool,
        `SELECT ${TOKEN_COLUMNS} FROM tokens ORDER BY name`,
      );
      return rows.map(({ name, kind, createdAt }) => ({ name, kind, createdAt }));
    },
    async revokeToken(name) {
      return remember(() =>
        write(pool, async (client) => {
          const { rowCount } = await client.query('DELETE FROM tokens WHERE name = $1', [name]);
          return { result: (rowCount ?? 0) > 0, changed: false };
        }),
      );
    },
    async findToken(lookup) {
      // One row whether or not a token has the key: the token's, or a decoy of the same shape.
      const rows = await query<FoundToken>(
        pool,
        `SELECT coalesce(t.name, '') AS name, k.lookup,
                coalesce(t.hash, '\\x${'00'.repeat(32)}'::bytea) AS hash,
                coalesce(t.kind, 'read-only') AS kind, coalesce(t.created_at, 0) AS "createdAt",
                t.name IS NOT NULL AS found
         FROM (SELECT $1::text AS lookup) AS k LEFT JOIN tokens AS t ON t.lookup = k.lookup`,
        [lookup],
        'find-token',
      );
      return rows[0] as FoundToken;
    },
    // Asked by every request that needs access: once a turn for all who asked (gathered-reads).
    hasTokens: gatherOne(
      async () => (await query(pool, 'SELECT 1 FROM tokens LIMIT 1')).length > 0,
    ),
  };
}
