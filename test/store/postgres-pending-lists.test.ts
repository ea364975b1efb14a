import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type pg from 'pg';
import type { TermFilter } from '../../src/glossary/filters.ts';
import type { Term } from '../../src/glossary/term.ts';
import type { TermStore } from '../../src/glossary/term-store.ts';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { backends, type Location, listedIds, migratedPostgres } from '../helpers/backends.ts';
import { eventually } from '../helpers/eventually.ts';
import { manualTimers } from '../helpers/manual-timers.ts';

/**
 * The GIN indexes' pending lists (src/store/postgres/upkeep.ts): writes leave entries there that every
 * search reads, and a store that has gone quiet after writing merges them into the indexes.
 */

const INDEXES = ['terms_name_words', 'terms_all_words', 'terms_term_trigrams'];

function term(id: number): Term {
  return {
    id,
    term: `Kernel queue ${id}`,
    definition: `How the queue number ${id} reaches its kernel, with words of its own: w${id}a w${id}b.`,
    category: 'backend',
    see_also: [],
  };
}

const QUESTIONS: TermFilter[] = [
  { text: { words: { has: { in: 'any', words: ['kernel'] } } } },
  { text: { words: { has: { in: 'name', words: [], prefix: '10' } } } },
  { search: 'queue 10' },
];

const answers = (store: TermStore) => Promise.all(QUESTIONS.map((q) => listedIds(store, q)));

for (const backend of backends().filter((b) => b.name === 'postgres')) {
  describe("PostgreSQL search indexes' pending lists", () => {
    let location: Location;
    let client: pg.Client;
    let dispose: () => Promise<void>;
    before(async () => {
      ({ location, client, dispose } = await migratedPostgres(backend));
      await client.query('CREATE EXTENSION pgstattuple');
      // Autovacuum's ANALYZE empties the lists too: only the store may here.
      await client.query('ALTER TABLE terms SET (autovacuum_enabled = false)');
    });
    after(async () => {
      await dispose?.();
    });

    /**
     * Pages in each index's pending list, read without changing them. One query: pg deprecates
     * queueing a query on a client still busy with another.
     */
    const pending = async () => {
      const { rows } = await client.query<{ pages: number }>(
        'SELECT (pgstatginindex(name::regclass)).pending_pages AS pages FROM unnest($1::text[]) WITH ORDINALITY AS i(name, n) ORDER BY n',
        [INDEXES],
      );
      return rows.map((row) => row.pages);
    };

    test('single writes leave entries pending; once quiet the store merges them, and every answer stays the same', async () => {
      const busy = await openPostgresStore(location.url, { indexUpkeep: { idleMs: 60_000 } });
      let before: number[][];
      try {
        // 100 terms fill no list to its 64 kB (at which an insert would empty it): 1, 4 and 5
        // pages of 8.
        for (let id = 100; id < 200; id += 1) await busy.create(term(id));
        const left = await pending();
        assert.ok(
          left.every((pages) => pages > 0),
          `each index has pages pending (${left.join(', ')})`,
        );
        before = await answers(busy);
        assert.ok(before.every((ids) => ids.length > 0));
      } finally {
        await busy.close();
      }
      const quiet = await openPostgresStore(location.url, { indexUpkeep: { idleMs: 20 } });
      try {
        await quiet.create(term(1000));
        let left: number[] = [];
        await eventually(
          async () => {
            left = await pending();
            return left.every((pages) => pages === 0);
          },
          () => `the lists merged (still pending: ${left.join(', ')})`,
          { withinMs: 10_000 },
        );
        // The same answers, and the term written since found by each.
        assert.deepEqual(
          await answers(quiet),
          before.map((ids) => [...ids, 1000]),
        );
      } finally {
        await quiet.close();
      }
    });

    test('a bulk import empties the lists before it answers, and what it stored is found at once', async () => {
      const store = await openPostgresStore(location.url, { indexUpkeep: { idleMs: 60_000 } });
      try {
        for (let id = 3000; id < 3020; id += 1) await store.create(term(id));
        assert.ok(
          (await pending()).some((pages) => pages > 0),
          'single writes left entries',
        );
        const imported = Array.from({ length: 1000 }, (_, i) => term(4000 + i));
        const outcomes = await store.importMany(imported);
        assert.ok(outcomes.every((outcome) => outcome === 'created'));
        // Its own entries and those pending before: the quiet moment never came (60 s).
        assert.deepEqual(await pending(), [0, 0, 0]);
        assert.deepEqual(await listedIds(store, { search: 'queue 4999' }), [4999]);
        assert.deepEqual(
          await listedIds(store, { text: { words: { has: { in: 'any', words: ['w4500a'] } } } }),
          [4500],
        );
        assert.deepEqual(
          await listedIds(store, { text: { words: { has: { in: 'name', words: ['4321'] } } } }),
          [4321],
        );
      } finally {
        await store.close();
      }
    });

    test('a role that does not own the indexes is told once, and its writes stand', async () => {
      const role = `glossary_writer_${randomBytes(4).toString('hex')}`;
      // A password of its own: a server that asks for one (the throwaway one `npm test` starts
      // does, as production servers do) must let the role in too, not only a trusting one.
      const password = randomBytes(12).toString('hex');
      await client.query(`CREATE ROLE ${role} LOGIN PASSWORD '${password}'`);
      await client.query(`GRANT ALL ON ALL TABLES IN SCHEMA public TO ${role}`);
      await client.query(`GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO ${role}`);
      const url = new URL(location.url);
      url.username = role;
      url.password = password;
      const told: { message: string; error: unknown }[] = [];
      const timers = manualTimers();
      const store = await openPostgresStore(url.toString(), {
        indexUpkeep: { idleMs: 20, timers },
        warn: (message, error) => told.push({ message, error }),
      });
      try {
        await store.create(term(2000));
        timers.elapse();
        await eventually(() => told.length > 0, 'the failure to merge is told', { withinMs: 5000 });
        await store.create(term(2001));
        // A second quiet moment; closing waits for the upkeep it started.
        assert.equal(timers.pending(), 1, 'the store waits for quiet again');
        timers.elapse();
        assert.equal((await store.get(2000))?.term, 'Kernel queue 2000');
        assert.equal((await store.get(2001))?.term, 'Kernel queue 2001');
        // Its imports keep the lists' limit, as it could not empty longer ones: 64 kB, 8 pages.
        const imported = Array.from({ length: 1000 }, (_, i) => term(5000 + i));
        assert.ok((await store.importMany(imported)).every((outcome) => outcome === 'created'));
        const left = await pending();
        assert.ok(
          left.every((pages) => pages <= 8),
          `within 64 kB: ${left.join(', ')} pages`,
        );
        assert.deepEqual(await listedIds(store, { search: 'queue 5999' }), [5999]);
        await store.close();
        assert.equal(told.length, 1, 'told once, not after every quiet moment');
        assert.match(told[0]?.message ?? '', /does not own them/);
        assert.match(String((told[0]?.error as Error | undefined)?.message), /must be owner/);
      } finally {
        await store.close();
        await client.query(`DROP OWNED BY ${role}`);
        await client.query(`DROP ROLE ${role}`);
      }
    });
  });
}
