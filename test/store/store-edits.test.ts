import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import fc from 'fast-check';
import type { TermFilter } from '../../src/glossary/filters.ts';
import type { Change } from '../../src/glossary/history.ts';
import type { Category, Term } from '../../src/glossary/term.ts';
import type { TermStore } from '../../src/glossary/term-store.ts';
import { backends, type Location, wholeHistory } from '../helpers/backends.ts';

/** The editing promises of `TermStore` (rules 2 to 4), held by every backend alike. */

const term = (id: number, name = `Term ${id}`): Term => ({
  id,
  term: name,
  definition: `Definition of ${name}.`,
  category: 'backend',
  see_also: [],
});
const by = (name: string | null, at = 1_700_000_000_000): Change => ({ by: name, at });
const rename = (name: string) => (current: Term) => ({ ...current, term: name });
const accept = () => undefined;

async function listAll(store: TermStore, filter: TermFilter = {}): Promise<Term[]> {
  const all: Term[] = [];
  for await (const chunk of store.list(filter)) all.push(...chunk);
  return all;
}
const ids = (terms: readonly Term[]) => terms.map((t) => t.id);
const names = (terms: readonly Term[]) => terms.map((t) => t.term);

for (const backend of backends()) {
  describe(`store contract: edits and history (${backend.name})`, () => {
    let s: TermStore;
    beforeEach(async () => {
      s = await backend.open();
    });
    afterEach(() => s.close());

    test('update replaces the earliest live term in place and records it', async () => {
      await s.importMany([term(1), term(2), term(3)], by('importer', 1000));
      await s.create(term(2, 'Second two'), by(null, 2000));
      const updated = await s.update(2, rename('Two'), by('editor', 3000));
      assert.deepEqual(updated, { ...term(2), term: 'Two' });
      assert.deepEqual(updated && (await s.get(2)), { ...term(2), term: 'Two' });
      assert.deepEqual(names(await listAll(s)), ['Term 1', 'Two', 'Term 3', 'Second two']);
      const history = await wholeHistory(s, 2);
      assert.deepEqual(
        history.map(({ action, at, by, term }) => ({ action, at, by, name: term.term })),
        [
          { action: 'updated', at: 3000, by: 'editor', name: 'Two' },
          { action: 'created', at: 2000, by: null, name: 'Second two' },
          { action: 'created', at: 1000, by: 'importer', name: 'Term 2' },
        ],
      );
      const revisions = history.map((entry) => entry.revision);
      assert.deepEqual(
        revisions,
        [...revisions].sort((a, b) => b - a),
      );
      assert.equal(new Set(revisions).size, 3);
    });

    test('an edit that throws changes nothing; a missing id changes nothing', async () => {
      await s.create(term(1));
      const revision = await s.revision();
      const refusal = new Error('refused');
      await assert.rejects(
        s.update(
          1,
          () => {
            throw refusal;
          },
          by(null),
        ),
        (error) => error === refusal,
      );
      await assert.rejects(
        s.remove(
          1,
          () => {
            throw refusal;
          },
          by(null),
        ),
        (error) => error === refusal,
      );
      assert.equal(await s.update(9, rename('x'), by(null)), undefined);
      assert.equal(await s.remove(9, accept, by(null)), undefined);
      assert.equal(await s.revision(), revision);
      assert.deepEqual(await s.get(1), term(1));
      assert.deepEqual(
        (await wholeHistory(s, 1)).map((e) => e.action),
        ['created'],
      );
    });

    test('remove shows the next duplicate, frees the id for importMany, keeps the history', async () => {
      await s.create(term(7, 'First'));
      await s.create(term(8));
      await s.create(term(7, 'Second'));
      assert.deepEqual(await s.remove(7, accept, by('cleaner')), term(7, 'First'));
      assert.equal((await s.get(7))?.term, 'Second');
      assert.deepEqual(await s.importMany([term(7)]), ['exists']);
      assert.deepEqual(await s.remove(7, accept, by('cleaner')), term(7, 'Second'));
      assert.equal(await s.get(7), undefined);
      assert.equal(await s.count({}), 1);
      assert.deepEqual(await listAll(s, { search: 'first' }), []);
      assert.deepEqual(await s.importMany([term(7, 'Third')]), ['created']);
      assert.deepEqual(
        (await wholeHistory(s, 7)).map((e) => [e.action, e.term.term]),
        [
          ['created', 'Third'],
          ['deleted', 'Second'],
          ['deleted', 'First'],
          ['created', 'Second'],
          ['created', 'First'],
        ],
      );
    });

    test('restore brings a deleted term back at its old place, with its creation', async () => {
      await s.importMany([term(1), term(2), term(3)]);
      await s.update(2, rename('Two'), by('a'));
      await s.remove(2, accept, by('b'));
      const history = await wholeHistory(s, 2);
      const created = history.find((entry) => entry.action === 'created');
      assert.ok(created);
      const restored = await s.restore(2, created.revision, accept, by('c', 5000));
      assert.deepEqual(restored, term(2));
      assert.deepEqual(ids(await listAll(s)), [1, 2, 3]);
      assert.deepEqual(await s.get(2), term(2));
      assert.deepEqual(await listAll(s, { search: 'term 2' }), [term(2)]);
      const after = await wholeHistory(s, 2);
      assert.deepEqual(
        after.map((e) => [e.action, e.by, e.term.term]),
        [
          ['restored', 'c', 'Term 2'],
          ['deleted', 'b', 'Two'],
          ['updated', 'a', 'Two'],
          ['created', null, 'Term 2'],
        ],
      );
      assert.equal(after[0]?.at, 5000);
      // Removed and restored again: still one creation, the same one.
      await s.remove(2, accept, by(null));
      await s.restore(2, after[1]?.revision as number, accept, by(null));
      assert.equal((await s.get(2))?.term, 'Two');
      const creations = (await wholeHistory(s, 2)).filter((e) => e.action === 'created');
      assert.deepEqual(
        creations.map((e) => e.revision),
        [created.revision],
      );
    });

    test('restore of a live term gives it that state; unknown revisions and ids are told apart', async () => {
      await s.create(term(4));
      await s.update(4, rename('Four'), by(null));
      const [, first] = await wholeHistory(s, 4);
      assert.ok(first);
      let seen: Term | undefined | null = null;
      const restored = await s.restore(
        4,
        first.revision,
        (current) => {
          seen = current;
        },
        by(null),
      );
      assert.deepEqual(seen, { ...term(4), term: 'Four' });
      assert.deepEqual(restored, term(4));
      assert.deepEqual(await s.get(4), term(4));
      assert.equal(await s.restore(4, 999_999, accept, by(null)), 'no-such-revision');
      assert.equal(await s.restore(5, first.revision, accept, by(null)), undefined);
      assert.deepEqual(await wholeHistory(s, 5), []);
    });

    test('history is read a page at a time, newest first, with a cursor that holds under edits', async () => {
      await s.importMany([term(1)]);
      for (let i = 0; i < 250; i += 1) {
        await s.update(1, (t) => ({ ...t, definition: `Version ${i}.` }), by(null));
      }
      const first = await s.history(1, { limit: 100 });
      assert.ok(first);
      assert.equal(first.total, 251);
      assert.equal(first.entries.length, 100);
      assert.equal(first.entries[0]?.term.definition, 'Version 249.');
      const revisions = first.entries.map((entry) => entry.revision);
      assert.deepEqual(
        revisions,
        [...revisions].sort((a, b) => b - a),
      );
      const last = await s.history(1, { limit: 100, offset: 200 });
      assert.equal(last?.entries.length, 51);
      assert.equal(last?.entries.at(-1)?.action, 'created');
      assert.equal(last?.total, 251);

      // Changes made while a reader pages through arrive at the head, before its cursor.
      const whole = await wholeHistory(s, 1);
      for (let i = 0; i < 5; i += 1) await s.update(1, rename(`Renamed ${i}`), by(null));
      const cursor = first.entries.at(-1)?.revision;
      const second = await s.history(1, { limit: 100, before: cursor });
      assert.equal(second?.total, 151);
      assert.deepEqual(
        [...first.entries, ...(second?.entries ?? [])].map((entry) => entry.revision),
        whole.slice(0, 200).map((entry) => entry.revision),
      );
      assert.deepEqual(await s.history(1, { limit: 10, before: 1 }), { entries: [], total: 0 });
      assert.equal(await s.history(2, { limit: 10 }), undefined);
    });

    test("a page of history places an unchanged duplicate's creation among recorded entries", async () => {
      await s.importMany([term(5)], by(null, 1000));
      await s.create(term(5, 'Duplicate'), by(null, 2000));
      await s.update(5, rename('Five'), by(null, 3000));
      const page = async (offset: number) =>
        (await s.history(5, { limit: 1, offset }))?.entries.map((e) => [e.action, e.term.term]);
      assert.deepEqual(await page(0), [['updated', 'Five']]);
      assert.deepEqual(await page(1), [['created', 'Duplicate']]);
      assert.deepEqual(await page(2), [['created', 'Term 5']]);
      assert.deepEqual(await page(3), []);
      const [, duplicate] = (await s.history(5, { limit: 3 }))?.entries ?? [];
      const older = await s.history(5, { limit: 3, before: duplicate?.revision });
      assert.deepEqual(
        older?.entries.map((e) => e.term.term),
        ['Term 5'],
      );
      assert.equal(older?.total, 1);
    });

    test('restore finds its one entry deep in a long history, and only in that id', async () => {
      await s.importMany([term(6), term(7)]);
      const [created] = await wholeHistory(s, 6);
      for (let i = 0; i < 150; i += 1) {
        await s.update(6, (t) => ({ ...t, definition: `Version ${i}.` }), by(null));
      }
      assert.ok(created);
      assert.deepEqual(await s.restore(6, created.revision, accept, by(null)), term(6));
      assert.deepEqual(await s.get(6), term(6));
      const [seven] = await wholeHistory(s, 7);
      assert.equal(
        await s.restore(6, seven?.revision as number, accept, by(null)),
        'no-such-revision',
      );
      await s.remove(6, accept, by(null));
      const deleted = await s.history(6, { limit: 1 });
      assert.equal(deleted?.entries[0]?.action, 'deleted');
      assert.equal(deleted?.total, 153);
      assert.deepEqual(
        await s.restore(6, deleted?.entries[0]?.revision as number, accept, by(null)),
        term(6),
      );
    });

    test('a change is never recorded before the entry before it, whatever the clock says', async () => {
      const later = Date.now() + 3_600_000;
      await s.importMany([term(8), term(9)]);
      // An entry from a clock an hour ahead (another instance's, or this one before it was set back).
      await s.update(8, rename('Ahead'), { by: null, at: later });
      await s.update(8, rename('Now'), { by: null });
      await s.remove(9, accept, { by: null, at: later });
      const [deleted] = await wholeHistory(s, 9);
      await s.restore(9, deleted?.revision as number, accept, { by: null });
      for (const id of [8, 9]) {
        const times = (await wholeHistory(s, id)).map((entry) => entry.at);
        assert.ok(
          (times[0] ?? 0) >= later,
          `the newest entry of ${id} is not before the one before it`,
        );
        assert.deepEqual(
          times,
          [...times].sort((a, b) => b - a),
        );
      }
    });

    test('search, sort, count and get follow every change at once', async () => {
      await s.importMany([term(1, 'Alpha'), term(2, 'Beta'), term(3, 'Gamma')]);
      assert.equal(await s.count({ search: 'alp' }), 1);
      await s.update(1, rename('Omega'), by(null));
      assert.deepEqual(await listAll(s, { search: 'alp' }), []);
      assert.equal(await s.count({ search: 'alp' }), 0);
      assert.deepEqual(ids(await listAll(s, { search: 'omeg' })), [1]);
      const sorted: Term[] = [];
      for await (const chunk of s.list({}, { sort: 'term' })) sorted.push(...chunk);
      assert.deepEqual(names(sorted), ['Beta', 'Gamma', 'Omega']);
      await s.remove(3, accept, by(null));
      assert.equal(await s.count({}), 2);
      assert.deepEqual(await listAll(s, { search: 'gamma' }), []);
    });

    test('revision changes with every change, and only then', async () => {
      const seen = new Set([await s.revision()]);
      const changed = async () => {
        const revision = await s.revision();
        assert.ok(!seen.has(revision), `revision ${revision} repeated`);
        seen.add(revision);
      };
      await s.create(term(1));
      await changed();
      await s.update(1, rename('One'), by(null));
      await changed();
      await s.remove(1, accept, by(null));
      await changed();
      const [deleted] = await wholeHistory(s, 1);
      await s.restore(1, deleted?.revision as number, accept, by(null));
      await changed();
      const unchanged = await s.revision();
      await wholeHistory(s, 1);
      await s.update(2, rename('x'), by(null));
      await s.remove(2, accept, by(null));
      await s.importMany([term(1)]);
      assert.equal(await s.revision(), unchanged);
    });

    test('a list longer than one chunk is one snapshot, whatever is written meanwhile', async () => {
      await s.importMany(Array.from({ length: 1200 }, (_, i) => term(i)));
      const listed: Term[] = [];
      let wrote = false;
      for await (const chunk of s.list({}, { sort: 'term' })) {
        listed.push(...chunk);
        if (!wrote) {
          wrote = true;
          await s.update(1100, rename('Term 0 renamed'), by(null));
          await s.remove(1199, accept, by(null));
          await s.create(term(5000));
        }
      }
      assert.equal(listed.length, 1200);
      assert.equal(new Set(ids(listed)).size, 1200);
      assert.ok(listed.some((t) => t.id === 1199));
      assert.equal(listed.find((t) => t.id === 1100)?.term, 'Term 1100');
      assert.equal((await listAll(s)).length, 1200);
    });

    test('tokens: added once by name, listed without secrets, found by lookup, revoked', async () => {
      assert.equal(await s.hasTokens(), false);
      const token = {
        name: 'ci',
        kind: 'write' as const,
        createdAt: 1_700_000_000_123,
        lookup: 'abc123',
        hash: Buffer.alloc(32, 7),
      };
      assert.equal(await s.addToken(token), 'added');
      assert.equal(await s.addToken({ ...token, lookup: 'other' }), 'name-taken');
      await s.addToken({ ...token, name: 'reader', kind: 'read-only', lookup: 'def456' });
      assert.equal(await s.hasTokens(), true);
      assert.deepEqual(await s.listTokens(), [
        { name: 'ci', kind: 'write', createdAt: 1_700_000_000_123 },
        { name: 'reader', kind: 'read-only', createdAt: 1_700_000_000_123 },
      ]);
      assert.deepEqual(await s.findToken('abc123'), { ...token, found: true });
      // A lookup key no token has answers a decoy of the same shape (see findToken).
      const decoy = (lookup: string) => ({
        name: '',
        kind: 'read-only',
        createdAt: 0,
        lookup,
        hash: Buffer.alloc(32),
        found: false,
      });
      assert.deepEqual(await s.findToken('nope'), decoy('nope'));
      assert.equal(await s.revokeToken('ci'), true);
      assert.equal(await s.revokeToken('ci'), false);
      assert.deepEqual(await s.findToken('abc123'), decoy('abc123'));
    });
  });

  describe(`store contract: changes seen across stores on one storage (${backend.name})`, () => {
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

    test('after any acknowledged change the other store answers from the new state', async () => {
      await first.importMany([term(1, 'Kubernetes'), term(2, 'Docker')]);
      // Warm the second store's caches (count, search plan, revision).
      assert.equal(await second.count({ search: 'kube' }), 1);
      let revision = await second.revision();
      const expectNew = async () => {
        const now = await second.revision();
        assert.notEqual(now, revision);
        revision = now;
      };
      await first.update(1, rename('Podman'), by(null));
      await expectNew();
      assert.equal(await second.count({ search: 'kube' }), 0);
      assert.equal(await second.count({ search: 'podman' }), 1);
      assert.equal((await second.get(1))?.term, 'Podman');
      await first.remove(2, accept, by(null));
      await expectNew();
      assert.equal(await second.count({}), 1);
      assert.deepEqual(await second.importMany([term(2, 'Docker again')]), ['created']);
      await expectNew();
      assert.equal((await first.get(2))?.term, 'Docker again');
    });

    test('counts stay exact through any run of writes through either store, together too', async () => {
      // Each store keeps counts between writes (PostgreSQL brings them up to date from its
      // change log); every count must equal what a list finds, whoever wrote and however many.
      const NAMES = ['Cache', 'Queue', 'Cache queue', 'Caching layer', 'Router'];
      const filters: TermFilter[] = [
        {},
        { category: 'devops' },
        { search: 'ca' },
        { text: { words: { has: { in: 'any', words: ['cache'], prefix: 'cach' } } } },
        { category: 'backend', text: { words: { has: { in: 'name', words: ['queue'] } } } },
        { text: { name: { is: 'cache queue' } } },
        { linksTo: 1 },
        { linksTo: 2, category: 'backend' },
      ];
      let fresh = 1000;
      // Each name links somewhere of its own, so an update can move a term's links.
      const named = (id: number, name: string, category: Category): Term => ({
        ...term(id, name),
        category,
        see_also: [1 + (NAMES.indexOf(name) % 3), ...(name.length % 2 ? [2] : [])],
      });
      const nameArb = fc.constantFrom(...NAMES);
      const categoryArb = fc.constantFrom<Category>('backend', 'devops');
      const idArb = fc.integer({ min: 1, max: 8 });
      const writeArb = fc.oneof(
        fc.tuple(fc.constant('create' as const), idArb, nameArb, categoryArb),
        fc.tuple(fc.constant('update' as const), idArb, nameArb, categoryArb),
        fc.tuple(fc.constant('remove' as const), idArb),
        fc.tuple(fc.constant('restore' as const), idArb),
        // More rows than PostgreSQL's log lists one by one (CHANGES_LISTED, change-log-trigger.ts), or a few.
        fc.tuple(fc.constant('import' as const), fc.constantFrom(2, 80), nameArb),
      );
      type Write = typeof writeArb extends fc.Arbitrary<infer W> ? W : never;
      const run = async (store: TermStore, write: Write) => {
        switch (write[0]) {
          case 'create':
            return store.create(named(write[1], write[2], write[3]));
          case 'update':
            return store.update(write[1], (t) => named(t.id, write[2], write[3]), by(null));
          case 'remove':
            return store.remove(write[1], accept, by(null));
          case 'restore': {
            const oldest = (await wholeHistory(store, write[1])).at(-1);
            return oldest && store.restore(write[1], oldest.revision, accept, by(null));
          }
          case 'import': {
            const ids = [
              write[1] === 2 ? 1 : 2,
              ...Array.from({ length: write[1] - 1 }, () => fresh++),
            ];
            return store.importMany(ids.map((id) => named(id, write[2], 'devops')));
          }
        }
      };
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.array(fc.tuple(fc.boolean(), writeArb), { minLength: 1, maxLength: 3 }), {
            minLength: 1,
            maxLength: 6,
          }),
          async (rounds) => {
            for (const together of rounds) {
              await Promise.all(together.map(([one, write]) => run(one ? first : second, write)));
              for (const filter of filters) {
                const listed = (await listAll(first, filter)).length;
                assert.equal(await first.count(filter), listed, JSON.stringify(filter));
                assert.equal(await second.count(filter), listed, JSON.stringify(filter));
              }
              const all = await listAll(second);
              for (const target of [1, 2, 3]) {
                assert.deepEqual(
                  ids(await listAll(first, { linksTo: target })),
                  ids(all.filter((t) => t.see_also.includes(target))),
                  `links_to=${target}`,
                );
              }
            }
          },
        ),
        { numRuns: 25 },
      );
    });

    test('concurrent edits of one term through two stores lose none', async () => {
      await first.create({ ...term(10), definition: '0' });
      const increment = (current: Term) => ({
        ...current,
        definition: String(Number(current.definition) + 1),
      });
      await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          (i % 2 ? first : second).update(10, increment, by(null)),
        ),
      );
      assert.equal((await first.get(10))?.definition, '24');
      assert.equal((await wholeHistory(second, 10)).length, 25);
    });

    test('bulk imports racing removals of the same id create it once per freeing', async () => {
      await first.create(term(20));
      const results = await Promise.all([
        second.remove(20, accept, by(null)),
        first.importMany([term(20, 'Imported A')]),
        second.importMany([term(20, 'Imported B')]),
      ]);
      const created = results.slice(1).filter((outcome) => (outcome as string[])[0] === 'created');
      assert.ok(created.length <= 1, 'the freed id was created twice');
      const live: Term[] = [];
      for await (const chunk of first.list({ search: 'Term 20' })) live.push(...chunk);
      for await (const chunk of first.list({ search: 'Imported' })) live.push(...chunk);
      assert.ok(live.length <= 1, `id 20 is live ${live.length} times`);
    });
  });
}
