import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createPool } from '../../src/store/postgres/pool.ts';
import { backends } from '../helpers/backends.ts';

/**
 * The pool's connections as the service's statements need them (pool.ts): no JIT compilation,
 * which at 1,000,000 terms cost a first page's statement 50-90 ms for 0.7 ms of execution.
 */
for (const backend of backends().filter((one) => one.name === 'postgres')) {
  describe('PostgreSQL pool', () => {
    test('every pooled connection has JIT compilation off, from its first statement', async () => {
      const location = await backend.location();
      const pool = createPool(location.url, { poolSize: 3 });
      try {
        // Three connections at once, so each is a new one, asked at once after connecting.
        const answers = await Promise.all(
          [1, 2, 3].map(async () => {
            const client = await pool.connect();
            try {
              return (await client.query<{ jit: string }>('SHOW jit')).rows[0]?.jit;
            } finally {
              client.release();
            }
          }),
        );
        assert.deepEqual(answers, ['off', 'off', 'off']);
      } finally {
        await pool.end();
        await location.dispose();
      }
    });
  });
}
