import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import type { Term } from '../../src/glossary/term.ts';
import type { TermStore } from '../../src/glossary/term-store.ts';
import { typoCandidate, wordsOf } from '../../src/glossary/words.ts';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { openSqlite } from '../../src/store/sqlite/driver.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { backends, type Location, wholeHistory } from '../helpers/backends.ts';

/**
 * The words a typo may find (`similarWords`) follow the glossary's content: a word no live term
 * has is no longer answered, by the store that wrote, by another store on the same storage
 * (another process), and after reopening; on every backend.
 */

const term = (id: number, name: string, definition: string): Term => ({
  id,
  term: name,
  definition,
  category: 'backend',
  see_also: [],
});

const change = { by: null, at: 1_700_000_000_000 };

/** Every word the store's vocabulary holds: none is more than 40 edits from a 20-letter probe. */
const vocabularyOf = async (store: TermStore) =>
  new Set(await store.similarWords('qqqqqqqqqqqqqqqqqqqq', 40));

/** The words of the live terms, as the store lists them: the typo words, or all. */
async function liveWords(store: TermStore, all = false): Promise<Set<string>> {
  const words = new Set<string>();
  for await (const chunk of store.list({})) {
    for (const t of chunk) {
      for (const word of [...wordsOf(t.term), ...wordsOf(t.definition)]) {
        if (all || typoCandidate(word)) words.add(word);
      }
    }
  }
  return words;
}

/** A column of words read from the storage itself, sorted. */
async function stored(location: Location, sql: string): Promise<string[]> {
  if (location.url.startsWith('sqlite:')) {
    const db = openSqlite(location.url.slice('sqlite:'.length), { readonly: true });
    try {
      return db.prepare<[], string>(sql).pluck().all().sort();
    } finally {
      db.close();
    }
  }
  const client = new pg.Client(location.url);
  await client.connect();
  try {
    return (await client.query<{ word: string }>(sql)).rows.map((row) => row.word).sort();
  } finally {
    await client.end();
  }
}

/** A store on `location` that purges removals at its first quiet moment (10 ms). */
async function purgingAtOnce(location: Location): Promise<TermStore> {
  const indexUpkeep = { idleMs: 10, keepRemovalsMs: 0 };
  return location.url.startsWith('sqlite:')
    ? openSqliteStore(location.url.slice('sqlite:'.length), { indexUpkeep })
    : openPostgresStore(location.url, { indexUpkeep, poolSize: 3 });
}

/** A small random number generator, so a failing run can be repeated. */
function random(seed: number): (below: number) => number {
  let state = seed;
  return (below) => {
    state = (state * 48271) % 2147483647;
    return state % below;
  };
}

for (const backend of backends()) {
  describe(`the vocabulary follows the glossary's content (${backend.name})`, () => {
    let location: Location;
    let writer: TermStore;
    let reader: TermStore;
    before(async () => {
      location = await backend.location();
      writer = await location.open();
      reader = await location.open();
    });
    after(async () => {
      await writer?.close();
      await reader?.close();
      await location?.dispose();
    });

    test('a word no live term has is no longer answered, here, elsewhere and after reopening', async () => {
      await writer.importMany([
        term(1, 'Sharding', 'Splitting rows across partitions.'),
        term(2, 'Replica', 'A copy of the partitions elsewhere.'),
      ]);
      for (const store of [writer, reader]) {
        assert.deepEqual(await store.similarWords('shardng', 1), ['sharding']);
        assert.deepEqual(await store.similarWords('partitons', 1), ['partitions']);
      }
      // The name's word leaves with the update; `partitions` stays: term 2 still has it.
      await writer.update(1, (t) => ({ ...t, term: 'Shards' }), change);
      for (const store of [writer, reader]) {
        assert.deepEqual(
          await store.similarWords('shardng', 1),
          [],
          store === writer ? 'here' : 'elsewhere',
        );
        assert.deepEqual(await store.similarWords('shars', 1), ['shards']);
        assert.deepEqual(await store.similarWords('partitons', 1), ['partitions']);
      }
      await writer.remove(2, () => undefined, change);
      for (const store of [writer, reader]) {
        assert.deepEqual(await store.similarWords('replca', 1), []);
        assert.deepEqual(await store.similarWords('partitons', 1), ['partitions'], 'term 1 has it');
        assert.deepEqual(await vocabularyOf(store), await liveWords(writer));
      }
      await reader.remove(1, () => undefined, change);
      for (const store of [writer, reader]) {
        assert.deepEqual(await store.similarWords('partitons', 1), []);
        assert.deepEqual(await vocabularyOf(store), new Set());
      }
      // A restore brings its words back.
      const [deleted] = await wholeHistory(reader, 2);
      await writer.restore(2, deleted?.revision ?? 0, () => undefined, change);
      assert.deepEqual(await reader.similarWords('replca', 1), ['replica']);
      assert.deepEqual(await vocabularyOf(reader), await liveWords(reader));

      await writer.close();
      writer = await location.open();
      assert.deepEqual(await vocabularyOf(writer), await liveWords(writer), 'after reopening');
      assert.deepEqual(await writer.similarWords('shars', 1), []);
    });

    test('a store that has not looked since removals were purged reads the vocabulary afresh', async () => {
      const purging = await purgingAtOnce(location);
      try {
        await purging.importMany([term(10, 'Kubernetes', 'Schedules containers.')]);
        assert.deepEqual(await reader.similarWords('kubernets', 1), ['kubernetes']);
        await purging.update(10, (t) => ({ ...t, term: 'Nomad' }), change);
        // A later word, so the removal is not the newest number either.
        await purging.importMany([term(11, 'Sidecar', 'Runs beside a container.')]);
        const removals = 'SELECT word FROM vocabulary WHERE removed_at IS NOT NULL';
        for (
          const deadline = Date.now() + 20_000;
          (await stored(location, removals)).length > 0;
        ) {
          assert.ok(Date.now() < deadline, 'purged within 20 s of quiet');
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        // The reader never saw the removal, which is gone from the storage now.
        assert.deepEqual(await reader.similarWords('kubernets', 1), []);
        assert.deepEqual(await reader.similarWords('sidecra', 1), ['sidecar']);
        assert.deepEqual(await vocabularyOf(reader), await liveWords(reader));
        assert.deepEqual(await vocabularyOf(purging), await liveWords(reader));
      } finally {
        await purging.close();
      }
    });
  });
}

/**
 * Forty words, three a term, about twelve live terms: words keep losing their last
 * term and coming back in others, while writes add and take away the same words at once.
 */
const POOL = Array.from({ length: 40 }, (_, i) => `word${String.fromCharCode(97 + (i % 26))}${i}`);

for (const backend of backends()) {
  describe(`the vocabulary under concurrent writers on two stores (${backend.name})`, () => {
    test('after many writes at once, both stores and the storage hold exactly the live words', async () => {
      const location = await backend.location();
      const stores = [await location.open(), await location.open()];
      try {
        const pick = random(backend.name === 'sqlite' ? 11 : 13);
        const word = () => POOL[pick(POOL.length)] as string;
        const make = (id: number) => term(id, `${word()} ${id}`, `${word()}, ${word()}.`);
        let nextId = 1;
        const live = new Set<number>();
        const created = (ids: number[]) => {
          for (const id of ids) live.add(id);
        };
        const anyLive = () => [...live][pick(Math.max(1, live.size))] ?? 0;
        const operation = async (i: number) => {
          const store = stores[i % 2] as TermStore;
          const kind = pick(6);
          if (kind < 3 && live.size < 12) {
            const batch = Array.from({ length: 1 + pick(3) }, () => make(nextId++));
            if (batch.length === 1) await store.create(batch[0] as Term);
            else await store.importMany(batch);
            created(batch.map((t) => t.id));
          } else if (kind < 4) {
            const id = anyLive();
            live.delete(id);
            await store.remove(id, () => undefined, change);
          } else {
            const id = anyLive();
            const next = make(id);
            await store.update(id, () => next, change);
          }
        };
        // 600 writes, 16 at a time, alternately through each store.
        let started = 0;
        const worker = async () => {
          while (started < 600) await operation(started++);
        };
        await Promise.all(Array.from({ length: 16 }, worker));

        const words = await liveWords(stores[0] as TermStore);
        assert.ok(
          words.size > 0 && words.size < POOL.length,
          `some words live, some gone: ${words.size}, ${live.size}`,
        );
        for (const store of stores) assert.deepEqual(await vocabularyOf(store), words);
        assert.deepEqual(
          await stored(location, 'SELECT word FROM vocabulary WHERE removed_at IS NULL'),
          [...words].sort(),
        );
        if (backend.name === 'sqlite') {
          const all = await liveWords(stores[0] as TermStore, true);
          assert.deepEqual(
            await stored(location, 'SELECT word FROM indexed_words'),
            [...all].sort(),
          );
        }
      } finally {
        for (const store of stores) await store.close();
        await location.dispose();
      }
    });
  });
}
