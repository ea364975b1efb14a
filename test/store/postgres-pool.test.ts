import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createPool } from '../../src/store/postgres/pool.ts';
import { backends } from '../helpers/backends.ts';

/**
 * The pool's connections as the service's statements need them (pool.ts): no JIT compilation,
 * which at 1,000,000 terms cost a first page's statement 50-90 ms for 0.7 ms of execution, and
 * search indexes' pending lists of 64 kB, which every search reads in full.
 */
for (const backend of backends().filter((one) => one.name === 'postgres')) {
  describe('PostgreSQL pool', () => {
    test('every pooled connection has JIT compilation off and short pending lists, from its first statement', async () => {
      const location = await backend.location();
      const pool = createPool(location.url, { poolSize: 3 });
      try {
        // Three connections at once, so each is a new one, asked at once after connecting.
        const answers = await Promise.all(
          [1, 2, 3].map(async () => {
            const client = await pool.connect();
            try {
              const { rows } = await client.query<{ jit: string; limit: string }>(
                "SELECT current_setting('jit') AS jit, current_setting('gin_pending_list_limit') AS limit",
              );
              return rows[0];
            } finally {
              client.release();
            }
          }),
        );
        assert.deepEqual(answers, Array(3).fill({ jit: 'off', limit: '64kB' }));
      } finally {
        await pool.end();
        await location.dispose();
      }
    });
  });
}
