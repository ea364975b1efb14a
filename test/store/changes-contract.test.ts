import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import { changeType } from '../../src/glossary/changes.ts';
import type { HistoryEntry } from '../../src/glossary/history.ts';
import type { Term } from '../../src/glossary/term.ts';
import type { TermStore } from '../../src/glossary/term-store.ts';
import { backends, type Location, wholeHistory } from '../helpers/backends.ts';
import { eventually } from '../helpers/eventually.ts';

/** The promises of `ChangeFeed` (src/glossary/changes.ts), held by every backend alike. */

const term = (id: number, name = `Term ${id}`): Term => ({
  id,
  term: name,
  definition: `Definition of ${name}.`,
  category: 'backend',
  see_also: [],
});

const T = 1_700_000_000_000;

/** Every change above `since`, read `limit` at a time as a follower does (`since = next`). */
async function follow(store: TermStore, limit: number, since = 0): Promise<HistoryEntry[]> {
  const all: HistoryEntry[] = [];
  let next = since;
  for (;;) {
    const page = await store.changesSince(next, limit);
    assert.ok(page.length <= limit, `a page of at most ${limit}`);
    if (page.length === 0) return all;
    all.push(...page);
    next = page.at(-1)?.revision ?? next;
  }
}

/** What a change says: its type, id, who, when, and the term's state. */
const facts = (entry: HistoryEntry) => [
  changeType(entry),
  entry.term.id,
  entry.by,
  entry.at,
  entry.term,
];

const revisionsOf = (entries: readonly HistoryEntry[]) => entries.map((e) => e.revision);

function assertIncreasing(revisions: readonly number[]): void {
  revisions.forEach((revision, at) => {
    if (at > 0) assert.ok(revision > (revisions[at - 1] ?? 0), `revisions grow: ${revisions}`);
  });
}

/**
 * One change of each kind, each at its own known time and by its own name: created (1),
 * imported (2, 3), updated (1), deleted (2), restored (2, deleted; then 1, live).
 */
async function everyKind(s: TermStore): Promise<unknown[][]> {
  const updated = { ...term(1), definition: 'Changed.' };
  await s.create(term(1), { by: 'alice', at: T + 1 });
  await s.importMany([term(2), term(3)], { by: 'bob', at: T + 2 });
  await s.update(1, () => updated, { by: 'carol', at: T + 3 });
  await s.remove(2, () => undefined, { by: 'dave', at: T + 4 });
  const [created2] = (await wholeHistory(s, 2)).filter((e) => e.action === 'created');
  const [created1] = (await wholeHistory(s, 1)).filter((e) => e.action === 'created');
  assert.ok(created1 && created2);
  await s.restore(2, created2.revision, () => undefined, { by: 'erin', at: T + 5 });
  await s.restore(1, created1.revision, () => undefined, { by: null, at: T + 6 });
  return [
    ['term.created', 1, 'alice', T + 1, term(1)],
    ['term.created', 2, 'bob', T + 2, term(2)],
    ['term.created', 3, 'bob', T + 2, term(3)],
    ['term.updated', 1, 'carol', T + 3, updated],
    ['term.deleted', 2, 'dave', T + 4, term(2)],
    ['term.restored', 2, 'erin', T + 5, term(2)],
    ['term.restored', 1, null, T + 6, term(1)],
  ];
}

for (const backend of backends()) {
  describe(`change feed contract (${backend.name})`, () => {
    let s: TermStore;
    beforeEach(async () => {
      s = await backend.open();
    });
    afterEach(() => s.close());

    test('an empty glossary has no changes', async () => {
      assert.deepEqual(await s.changesSince(0, 100), []);
      assert.ok((await s.latestRevision()) >= 0);
    });

    test('every kind of change appears once, in revision order, with its type, id, by, at and term', async () => {
      const expected = await everyKind(s);
      const changes = await s.changesSince(0, 100);
      assert.deepEqual(changes.map(facts), expected);
      assertIncreasing(revisionsOf(changes));
    });

    test('a term created and then changed shows its creation once, at its creation revision', async () => {
      // Five imported, two of them changed later; one created after; the first changed last.
      await s.importMany([1, 2, 3, 4, 5].map((id) => term(id)));
      const before = await s.changesSince(0, 100);
      for (const id of [2, 4, 1]) {
        await s.update(id, (t) => ({ ...t, definition: `Changed ${id}.` }), { by: null });
        if (id === 4) await s.create(term(6));
      }
      const changes = await s.changesSince(0, 100);
      assert.deepEqual(
        changes.map((e) => [changeType(e), e.term.id]),
        [
          ...[1, 2, 3, 4, 5].map((id) => ['term.created', id]),
          ['term.updated', 2],
          ['term.updated', 4],
          ['term.created', 6],
          ['term.updated', 1],
        ],
      );
      // Each creation kept its revision, time and state after its term changed.
      assert.deepEqual(changes.slice(0, 5), before);
      assertIncreasing(revisionsOf(changes));
    });

    test('paging with since = the last revision given, at any limit, gives each change exactly once', async () => {
      await everyKind(s);
      await s.importMany([10, 11, 12].map((id) => term(id)));
      await s.update(11, (t) => ({ ...t, definition: 'Again.' }), { by: null });
      await s.create(term(13));
      await s.update(3, (t) => ({ ...t, definition: 'Again.' }), { by: null });
      const all = await s.changesSince(0, 1000);
      assert.equal(all.length, 13);
      for (const limit of [1, 2, 3, 5, 12, 13, 100]) {
        assert.deepEqual(await follow(s, limit), all, `limit ${limit}`);
      }
      // From the middle: exactly what follows.
      const middle = all[5]?.revision as number;
      assert.deepEqual(
        await follow(s, 2, middle),
        all.filter((e) => e.revision > middle),
      );
      assert.deepEqual(await s.changesSince(all.at(-1)?.revision as number, 10), []);
    });

    test("the feed holds the same entries as each id's history", async () => {
      await everyKind(s);
      await s.create(term(1, 'Second with id 1'));
      await s.update(3, (t) => ({ ...t, definition: 'Changed.' }), { by: 'frank' });
      const changes = await s.changesSince(0, 1000);
      const ids = [...new Set(changes.map((e) => e.term.id))];
      assert.deepEqual(ids.sort(), [1, 2, 3]);
      for (const id of ids) {
        const history = (await wholeHistory(s, id)).reverse();
        assert.deepEqual(
          changes.filter((e) => e.term.id === id),
          history,
          `id ${id}`,
        );
      }
    });

    test('latestRevision is at least every revision in the feed, and moves with a write', async () => {
      await everyKind(s);
      const latest = await s.latestRevision();
      const changes = await s.changesSince(0, 1000);
      assert.ok(changes.every((e) => e.revision <= latest));
      assert.deepEqual(await s.changesSince(latest, 10), []);
      await s.create(term(20));
      const [added] = await s.changesSince(latest, 10);
      assert.equal(added?.term.id, 20);
      assert.ok((await s.latestRevision()) >= (added?.revision ?? Number.POSITIVE_INFINITY));
    });

    test('writes refused or rolled back, and ids an import found taken, leave no change', async () => {
      await s.create(term(1));
      const latest = (await s.changesSince(0, 10)).at(-1)?.revision as number;
      assert.deepEqual(await s.importMany([term(1)]), ['exists']);
      await assert.rejects(
        s.update(
          1,
          () => {
            throw new Error('refused');
          },
          { by: null },
        ),
        /refused/,
      );
      await assert.rejects(
        s.remove(
          1,
          () => {
            throw new Error('refused');
          },
          { by: null },
        ),
        /refused/,
      );
      assert.equal(await s.update(99, (t) => t, { by: null }), undefined);
      assert.deepEqual(await s.changesSince(latest, 10), []);
    });

    test("a watcher is woken by this store's own write, and not after it stopped watching", async () => {
      let woken = 0;
      let witness = 0;
      const stop = s.watchChanges(() => {
        woken += 1;
      });
      const stopWitness = s.watchChanges(() => {
        witness += 1;
      });
      try {
        await s.create(term(1));
        await eventually(() => woken > 0 && witness > 0, 'both listeners woken by a create');
        stop();
        stop(); // twice is harmless
        const stoppedAt = woken;
        const witnessAt = witness;
        await s.update(1, (t) => ({ ...t, definition: 'Changed.' }), { by: null });
        await eventually(() => witness > witnessAt, 'the witness woken by an update');
        assert.equal(woken, stoppedAt);
      } finally {
        stop();
        stopWitness();
      }
    });
  });

  describe(`change feed contract across stores on one storage (${backend.name})`, () => {
    let location: Location;
    let first: TermStore;
    let second: TermStore;
    before(async () => {
      location = await backend.location();
      first = await location.open();
      second = await location.open();
    });
    after(async () => {
      await first?.close();
      await second?.close();
      await location?.dispose();
    });

    test("watchChanges wakes a listener after the other store's write, and stops once unsubscribed", async () => {
      let woken = 0;
      let witness = 0;
      const stop = first.watchChanges(() => {
        woken += 1;
      });
      const stopWitness = first.watchChanges(() => {
        witness += 1;
      });
      try {
        await second.create(term(1));
        await eventually(() => woken > 0, "the listener woken by the other store's create");
        assert.equal((await first.changesSince(0, 10)).at(-1)?.term.id, 1);
        stop();
        const stoppedAt = woken;
        // Two more writes, each seen by the listener still watching.
        for (const id of [2, 3]) {
          const witnessAt = witness;
          await second.create(term(id));
          await eventually(() => witness > witnessAt, `the witness woken by create ${id}`);
        }
        assert.equal(woken, stoppedAt);
      } finally {
        stop();
        stopWitness();
      }
    });

    test('followers on both stores see every change of concurrent writers on both exactly once, in order', async () => {
      const start = await first.latestRevision();
      let writing = true;
      /** A follower asking `limit` at a time until the writers are done and it has caught up. */
      const follower = async (store: TermStore, limit: number) => {
        const seen: HistoryEntry[] = [];
        let next = start;
        for (;;) {
          // Read before the page: once the writers are done, an empty page means caught up.
          const done = !writing;
          const page = await store.changesSince(next, limit);
          seen.push(...page);
          next = page.at(-1)?.revision ?? next;
          if (page.length === 0 && done) return seen;
          if (page.length === 0) await new Promise((resolve) => setTimeout(resolve, 2));
        }
      };
      const writer = async (store: TermStore, base: number) => {
        for (let round = 0; round < 10; round += 1) {
          const ids = [0, 1, 2, 3].map((i) => base + round * 10 + i);
          await Promise.all(ids.map((id) => store.create(term(id))));
          await Promise.all([
            store.update(ids[0] as number, (t) => ({ ...t, definition: 'Changed.' }), {
              by: null,
            }),
            store.importMany([term(base + round * 10 + 5), term(base + round * 10 + 6)]),
            store.remove(ids[1] as number, () => undefined, { by: null }),
          ]);
        }
      };
      const followers = [follower(first, 3), follower(second, 7), follower(first, 1000)];
      await Promise.all([writer(first, 1000), writer(second, 2000), writer(first, 3000)]);
      writing = false;
      const seen = await Promise.all(followers);
      const all = await follow(second, 1000, start);
      // 3 writers x 10 rounds x (4 creates, 1 update, 2 imported, 1 remove)
      assert.equal(all.length, 3 * 10 * 8);
      assertIncreasing(revisionsOf(all));
      for (const entries of seen) assert.deepEqual(revisionsOf(entries), revisionsOf(all));
    });
  });
}
