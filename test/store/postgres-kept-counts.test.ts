import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type pg from 'pg';
import { openStore } from '../../src/store/open-store.ts';
import { keptCounts } from '../../src/store/postgres/kept-counts.ts';
import { filterSql } from '../../src/store/postgres/term-rows.ts';
import { backends, type Location, migratedPostgres } from '../helpers/backends.ts';
import { eventually } from '../helpers/eventually.ts';

/**
 * The PostgreSQL change log that keeps counts exact across writes: what its triggers note,
 * and what pruning may remove. (That counts stay exact through any writes, from any instance,
 * is the contract suite's; this is the log's own bookkeeping.)
 */

for (const backend of backends().filter((b) => b.name === 'postgres')) {
  describe('PostgreSQL change log', () => {
    let location: Location;
    let client: pg.Client;
    let dispose: () => Promise<void>;
    before(async () => {
      ({ location, client, dispose } = await migratedPostgres(backend));
    });
    after(async () => {
      await dispose?.();
    });

    const sql = async <R extends pg.QueryResultRow>(text: string, values: unknown[] = []) =>
      (await client.query<R>(text, values)).rows;
    const insert = (ids: number[]) =>
      sql(
        `INSERT INTO terms (id, term, term_folded, definition, category, see_also, name_words,
                            all_vec, created_at)
         SELECT id, 'Cache ' || id, 'cache ' || id, 'D.', 'backend', '[]', 'cache ' || id,
                array_to_tsvector(ARRAY['cache', id::text]), 0
         FROM unnest($1::bigint[]) id`,
        [ids],
      );
    const logged = async () =>
      (await sql<{ sign: number }>('SELECT sign FROM term_changes ORDER BY xid, sign')).map(
        (row) => row.sign,
      );
    const kept = keptCounts(sql);
    const cache = { text: { words: { has: { in: 'any' as const, words: ['cache'] } } } };

    test('each changed row is noted as it was and as it is; a statement of many rows, once', async () => {
      await insert([1, 2]);
      assert.deepEqual(await logged(), [1, 1]);
      await sql(`UPDATE terms SET category = 'devops' WHERE id = 1`);
      assert.deepEqual(await logged(), [1, 1, -1, 1]);
      await sql('DELETE FROM terms WHERE id = 2');
      assert.deepEqual(await logged(), [1, 1, -1, 1, -1]);
      await insert(Array.from({ length: 65 }, (_, i) => 100 + i));
      assert.deepEqual(await logged(), [1, 1, -1, 1, -1, 0]);
      await sql('BEGIN');
      await insert([3]);
      await sql('ROLLBACK');
      assert.deepEqual(await logged(), [1, 1, -1, 1, -1, 0], 'a rolled-back change is not noted');
    });

    test('a kept count follows changes from the log, and counts afresh after many', async () => {
      assert.equal(await kept.count(cache), 66);
      assert.equal(await kept.count({ category: 'devops' }), 1);
      await insert([4]);
      await sql(`UPDATE terms SET category = 'devops' WHERE id = 4`);
      assert.equal(await kept.count(cache), 67);
      assert.equal(await kept.count({ category: 'devops' }), 2);
      await sql('DELETE FROM terms WHERE id >= 100');
      assert.equal(await kept.count(cache), 2);
    });

    test('pruning removes only what was noted before a horizon recorded long enough ago', async () => {
      await sql('DELETE FROM term_change_horizons');
      await kept.prune();
      const noted = (await logged()).length;
      assert.equal(noted, 10, 'a fresh horizon prunes nothing');
      assert.equal((await sql('SELECT FROM term_change_horizons')).length, 1);
      await insert([5]);
      await kept.prune();
      assert.equal((await logged()).length, 11, 'nor does one younger than PRUNE_AFTER');
      // As if the first horizon had been recorded 11 minutes ago (PRUNE_AFTER is 10). Its
      // oldest running transaction is the server's: another database's may hold it back. The
      // first is the one with the lowest transaction id, not the earliest time: a wall clock
      // stepped back between the two prunes would swap their times (a CI run failed so once).
      const [first] = await sql<{ oldest: string }>(
        `UPDATE term_change_horizons SET at = least(at, now()) - interval '11 minutes'
         WHERE oldest = (SELECT min(oldest) FROM term_change_horizons) RETURNING oldest::text`,
      );
      const horizon = BigInt(first?.oldest ?? '0');
      const xids = async () =>
        (await sql<{ xid: string }>('SELECT xid::text FROM term_changes ORDER BY xid')).map((row) =>
          BigInt(row.xid),
        );
      const before = await xids();
      const after = before.at(-1); // id 5's, noted after the horizon was recorded
      await kept.prune();
      assert.deepEqual(
        await xids(),
        before.filter((xid) => xid >= horizon),
        'exactly the rows noted before the horizon are gone',
      );
      assert.ok(after !== undefined && after >= horizon, "id 5's row is kept");
      assert.equal(await kept.count(cache), 3);
      await insert([6]);
      assert.equal(await kept.count(cache), 4);
    });

    // Counts of at least `keepFrom` terms are also kept in `kept_counts`, for other instances.
    const stored = async () =>
      (await sql<{ count: number }>('SELECT count FROM kept_counts ORDER BY at')).map(
        (row) => row.count,
      );

    test('a slow count is kept in the database; a new instance carries it on through the log', async () => {
      await sql('DELETE FROM kept_counts');
      const first = keptCounts(sql, { keepFrom: 3 });
      assert.equal(await first.count({ category: 'devops' }), 2);
      assert.deepEqual(await stored(), [], 'a count below keepFrom stays in memory');
      assert.equal(await first.count(cache), 4);
      assert.deepEqual(await stored(), [4]);
      // Whether a new instance takes the kept count rather than counting afresh shows when the
      // kept one is off: it is carried on, wrong by exactly as much.
      await sql('UPDATE kept_counts SET count = count + 1000');
      await insert([7]);
      await sql(`UPDATE terms SET category = 'devops' WHERE id = 7`);
      const second = keptCounts(sql, { keepFrom: 3 });
      assert.equal(await second.count(cache), 1005, 'carried on from the kept count');
      assert.equal(await first.count(cache), 5, 'the first instance keeps its own');
      assert.deepEqual(await stored(), [1004], 'written again only SAVE_EVERY');
    });

    test('a kept count too old or older than a statement of many rows is not carried on', async () => {
      await sql(`UPDATE kept_counts SET at = at - 3600`);
      assert.equal(await keptCounts(sql, { keepFrom: 3 }).count(cache), 5, 'older than KEPT_FOR');
      assert.deepEqual(await stored(), [5], 'and the fresh count replaces it');
      await sql('UPDATE kept_counts SET count = count + 1000, started = started - 1');
      assert.equal(
        await keptCounts(sql, { keepFrom: 3 }).count(cache),
        5,
        'taken by a server started at another time (a restored copy)',
      );
      await sql('UPDATE kept_counts SET count = count + 1000');
      await insert(Array.from({ length: 65 }, (_, i) => 200 + i));
      assert.equal(await keptCounts(sql, { keepFrom: 3 }).count(cache), 70, 'after a bulk change');
      assert.deepEqual(await stored(), [70]);
    });

    test('where the server refuses the write, counts are still answered', async () => {
      await sql('DELETE FROM kept_counts');
      await sql('SET default_transaction_read_only = on');
      try {
        assert.equal(await keptCounts(sql, { keepFrom: 3 }).count(cache), 70);
      } finally {
        await sql('SET default_transaction_read_only = off');
      }
      assert.deepEqual(await stored(), []);
    });

    test('pruning removes the kept counts no instance may use any more', async () => {
      await keptCounts(sql, { keepFrom: 3 }).count(cache);
      await keptCounts(sql, { keepFrom: 1 }).count({ category: 'devops' });
      await sql(`UPDATE kept_counts SET at = at - 3600 WHERE count = 70`);
      await kept.prune();
      assert.deepEqual(await stored(), [3], 'only the devops count, still young, is left');
    });

    test('instances sharing kept counts stay exact through any writes and restarts', async () => {
      // Each instance keeps every count in the database (keepFrom 1), and may be replaced by
      // a new one (a restart: nothing in memory); after every step each count asked is
      // compared with one taken afresh.
      const filters = [cache, { category: 'devops' as const }, {}];
      const step = fc.oneof(
        fc.record({
          kind: fc.constant('insert' as const),
          ids: fc.array(fc.nat(30), { minLength: 1, maxLength: 3 }),
        }),
        fc.record({ kind: fc.constant('many' as const), first: fc.nat(30) }),
        fc.record({ kind: fc.constant('devops' as const), id: fc.nat(30) }),
        fc.record({ kind: fc.constant('delete' as const), id: fc.nat(30) }),
        fc.record({ kind: fc.constant('count' as const), instance: fc.nat(1), filter: fc.nat(2) }),
        fc.record({ kind: fc.constant('restart' as const), instance: fc.nat(1) }),
        // A prune by every horizon recorded so far, as if each were 11 minutes old (or the
        // clock had been set back): it removes rows the instances' kept counts have not seen.
        fc.record({ kind: fc.constant('prune' as const) }),
      );
      await fc.assert(
        fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: 25 }), async (steps) => {
          await sql('DELETE FROM terms');
          await sql('DELETE FROM kept_counts');
          const instances = [keptCounts(sql, { keepFrom: 1 }), keptCounts(sql, { keepFrom: 1 })];
          for (const s of steps) {
            if (s.kind === 'insert') await insert(s.ids.map((id) => 1000 + id));
            else if (s.kind === 'many')
              await insert(Array.from({ length: 65 }, (_, i) => 2000 + s.first + i));
            else if (s.kind === 'devops')
              await sql(`UPDATE terms SET category = 'devops' WHERE id = $1`, [1000 + s.id]);
            else if (s.kind === 'delete')
              await sql('DELETE FROM terms WHERE id IN ($1, $2)', [1000 + s.id, 2000 + s.id]);
            else if (s.kind === 'restart') instances[s.instance] = keptCounts(sql, { keepFrom: 1 });
            else if (s.kind === 'prune') {
              await sql(`UPDATE term_change_horizons SET at = at - interval '11 minutes'`);
              await kept.prune();
            } else {
              const filter = filters[s.filter] ?? {};
              const { where, values } = filterSql(filter);
              const [fresh] = await sql<{ n: number }>(
                `SELECT count(*)::int AS n FROM terms ${where}`,
                values,
              );
              assert.equal(await instances[s.instance]?.count(filter), fresh?.n);
            }
          }
        }),
        { numRuns: 200 },
      );
    });

    test('a count whose snapshot is older than the pruned log is counted afresh, whatever the clocks say', async () => {
      // A wall clock stepped back makes a horizon recorded after a count look old enough to
      // prune by while the count still looks young. Made here directly: a horizon above every
      // transaction so far, dated 11 minutes ago.
      await sql('DELETE FROM term_change_horizons');
      await sql('DELETE FROM kept_counts');
      const inMemory = keptCounts(sql);
      const shared = keptCounts(sql, { keepFrom: 1 });
      const before = await inMemory.count(cache);
      assert.equal(await shared.count(cache), before);
      await insert([3000]);
      await sql(
        `INSERT INTO term_change_horizons (at, oldest)
         VALUES (now() - interval '11 minutes', pg_snapshot_xmax(pg_current_snapshot()))`,
      );
      await kept.prune();
      assert.deepEqual(await logged(), [], "the insert's row is pruned");
      assert.equal(await inMemory.count(cache), before + 1, 'the count kept in memory');
      assert.equal(
        await keptCounts(sql, { keepFrom: 1 }).count(cache),
        before + 1,
        'the count kept in the database',
      );
      await insert([3001]);
      assert.equal(await inMemory.count(cache), before + 2, 'and carried on after that');
    });

    test('a count carried on reads only the rows its snapshot did not see, not the whole log', async () => {
      // 5,000 rows logged, in statements of 50 (each row listed), then one more: the count
      // carried on over that one must not read the rest of the log. The old statement's
      // search for a mark of many rows (sign 0) read every row the planner found none in.
      await sql('DELETE FROM terms');
      for (let first = 0; first < 5000; first += 50)
        await insert(Array.from({ length: 50 }, (_, i) => 10_000 + first + i));
      // The count's snapshot must have seen them all: on a shared server (the test runs with
      // others) a transaction of another database holds every snapshot's xmin back a while,
      // and what lies above it is rightly read again.
      const [last] = await sql<{ xid: string }>('SELECT max(xid)::text AS xid FROM term_changes');
      await eventually(
        async () =>
          (
            await sql<{ past: boolean }>(
              'SELECT pg_snapshot_xmin(pg_current_snapshot()) > $1::xid8 AS past',
              [last?.xid],
            )
          )[0]?.past === true,
        "the server's oldest running transaction past the logged rows",
      );
      // Planned for the values at each run, and as the store sends it: a prepared statement,
      // here planned once for any values (a generic plan, which PostgreSQL may choose after
      // five runs).
      const named = async <R extends pg.QueryResultRow>(
        text: string,
        values: unknown[] = [],
        name?: string,
      ) => (await client.query<R>(name ? { name, text, values } : { text, values })).rows;
      const planned = keptCounts(sql);
      const prepared = keptCounts(named);
      assert.equal(await planned.count(cache), 5000);
      assert.equal(await prepared.count(cache), 5000);
      await insert([20_000]);
      const read = async () => {
        const [row] = await sql<{ n: string }>(
          `SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) AS n
           FROM pg_stat_xact_user_tables WHERE relname = 'term_changes'`,
        );
        return Number(row?.n ?? 0);
      };
      // The statistics of this transaction: what its own statements read, so far.
      await sql('BEGIN');
      try {
        for (const [how, counts] of [
          ['planned at each run', planned],
          ['prepared', prepared],
        ] as const) {
          // (Unnamed statements, too, are planned once for any values from here on.)
          if (counts === prepared) await sql('SET LOCAL plan_cache_mode = force_generic_plan');
          const before = await read();
          assert.equal(await counts.count(cache), 5001, how);
          const rows = (await read()) - before;
          assert.ok(rows > 0 && rows < 100, `${how}: read ${rows} rows of a 5,001-row log`);
        }
        // The bound that keeps the planner on the index leaves this transaction's own rows in.
        await insert([20_001]);
        assert.equal(await planned.count(cache), 5002, 'a write of the same transaction counts');
        assert.equal(await prepared.count(cache), 5002, 'prepared, too');
        const [plans] = await sql<{ generic: number }>(
          `SELECT sum(generic_plans)::int AS generic FROM pg_prepared_statements
           WHERE name LIKE 'count-onward-%'`,
        );
        assert.ok((plans?.generic ?? 0) >= 2, 'carried on by the prepared, generic plan');
      } finally {
        await sql('COMMIT');
      }
    });

    test('a prune that fails is told through warn, and the write that set it off stands', async () => {
      // A real failure inside PostgreSQL: any DELETE from the change log raises.
      await sql(`CREATE FUNCTION refuse_prune() RETURNS trigger LANGUAGE plpgsql AS
                 $$ BEGIN RAISE EXCEPTION 'pruning refused by the test'; END $$`);
      await sql(`CREATE TRIGGER refuse_prune BEFORE DELETE ON term_changes
                 FOR EACH STATEMENT EXECUTE FUNCTION refuse_prune()`);
      const told: { message: string; error: unknown }[] = [];
      const store = await openStore({
        database: { kind: 'postgres', url: location.url },
        sqliteSynchronous: 'full',
        pgPoolSize: 2,
        warn: (message, error) => told.push({ message, error }),
      });
      try {
        const term = {
          id: 9001,
          term: 'Warned',
          definition: 'D.',
          category: 'backend' as const,
          see_also: [],
        };
        await store.create(term);
        await eventually(() => told.length > 0, 'a warning');
        const [warning] = told;
        assert.equal(told.length, 1);
        assert.match(warning?.message ?? '', /could not prune the change log/);
        assert.match(String((warning?.error as Error | undefined)?.message), /pruning refused/);
        assert.deepEqual(await store.get(9001), term);
      } finally {
        await store.close();
        await sql('DROP TRIGGER refuse_prune ON term_changes');
        await sql('DROP FUNCTION refuse_prune()');
      }
    });
  });
}
