import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import type { ListOptions, TermFilter } from '../../src/glossary/filters.ts';
import type { Category, Term } from '../../src/glossary/term.ts';
import type { TermStore } from '../../src/glossary/term-store.ts';
import { backends, wholeHistory } from '../helpers/backends.ts';

/** The promises of `TermStore`, held by every backend alike. */

const term = (id: number, name = `Term ${id}`, category: Category = 'backend'): Term => ({
  id,
  term: name,
  definition: `Definition of ${name}.`,
  category,
  see_also: [],
});

async function listAll(
  store: TermStore,
  filter: TermFilter = {},
  options?: ListOptions,
): Promise<Term[]> {
  const all: Term[] = [];
  for await (const chunk of store.list(filter, options)) all.push(...chunk);
  return all;
}

const names = (terms: readonly Term[]) => terms.map((t) => t.term);
const ids = (terms: readonly Term[]) => terms.map((t) => t.id);

for (const backend of backends()) {
  describe(`store contract (${backend.name})`, () => {
    // Each test gets an empty store of its own.
    let s: TermStore;
    beforeEach(async () => {
      s = await backend.open();
    });
    afterEach(() => s.close());

    test('an empty store lists nothing, counts 0 and answers check', async () => {
      assert.deepEqual(await listAll(s), []);
      assert.equal(await s.count({}), 0);
      assert.equal(await s.get(1), undefined);
      await s.check();
    });

    test('terms come back exactly as stored, see_also and extreme ids included', async () => {
      const big = Number.MAX_SAFE_INTEGER;
      const stored: Term = {
        id: -big,
        term: 'Ünïcödé 😀 \\ % _',
        definition: 'Line one\nline two\t"quoted"',
        category: 'docs-as-code',
        see_also: [big, -big, 0, 7],
      };
      await s.create(stored);
      await s.create({ ...term(big), see_also: [] });
      assert.deepEqual(await s.get(-big), stored);
      assert.deepEqual(await s.get(big), term(big));
      assert.deepEqual(await listAll(s), [stored, term(big)]);
    });

    test('creation order is kept across create and importMany, bulk items in request order', async () => {
      await s.create(term(50));
      await s.importMany([term(3), term(99), term(1)]);
      await s.create(term(2));
      assert.deepEqual(ids(await listAll(s)), [50, 3, 99, 1, 2]);
    });

    test('creates asked for together are all stored, each its own version', async () => {
      // SQLite commits single creates that arrive together in one transaction (group commit).
      const asked = Array.from({ length: 40 }, (_, i) => term(1000 - i));
      const before = await s.revision();
      await Promise.all(asked.map((t) => s.create(t, { at: 1_700_000_000_000, by: 'alice' })));
      // Concurrent calls promise no order among themselves (on PostgreSQL, commit order).
      assert.deepEqual(ids(await listAll(s)).sort(), ids(asked).sort());
      assert.notEqual(await s.revision(), before);
      for (const t of [asked[0], asked[39]] as Term[]) {
        const [entry] = await wholeHistory(s, t.id);
        assert.equal(entry?.action, 'created');
        assert.equal(entry?.by, 'alice');
        assert.deepEqual(entry?.term, t);
      }
      // Each create is its own version: the revisions of the history entries differ.
      const revisions = await Promise.all(
        asked.map(async (t) => (await wholeHistory(s, t.id))[0]?.revision),
      );
      assert.equal(new Set(revisions).size, asked.length);
    });

    test('an id created twice is listed twice and get answers the earliest', async () => {
      await s.create(term(7, 'First'));
      await s.create(term(8));
      await s.create(term(7, 'Second'));
      assert.equal((await s.get(7))?.term, 'First');
      assert.deepEqual(names(await listAll(s)), ['First', 'Term 8', 'Second']);
      assert.equal(await s.count({}), 3);
    });

    test('reads by id asked together each answer their own id, repeated and missing ids too', async () => {
      // PostgreSQL answers reads asked in the same turn of the event loop with one statement.
      await s.create(term(7, 'First'));
      await s.importMany(Array.from({ length: 300 }, (_, i) => term(i + 10)));
      await s.create(term(7, 'Second'));
      const asked = [7, 5, ...Array.from({ length: 300 }, (_, i) => 309 - i), 7, 10, -1, 7];
      const answers = await Promise.all(asked.map((id) => s.get(id)));
      assert.deepEqual(
        answers.map((t) => t?.term),
        asked.map((id) => (id === 7 ? 'First' : id >= 10 && id < 310 ? `Term ${id}` : undefined)),
      );
      // A read asked once a write was acknowledged sees it, however reads are gathered.
      await s.create(term(400));
      assert.deepEqual(await Promise.all([s.get(400), s.get(11)]), [term(400), term(11)]);
    });

    test('importMany creates new ids and reports ids already stored, in one go', async () => {
      await s.create(term(1, 'Posted'));
      await s.importMany([term(2, 'Bulk')]);
      const outcomes = await s.importMany([term(3), term(1), term(4), term(2)]);
      assert.deepEqual(outcomes, ['created', 'exists', 'created', 'exists']);
      assert.deepEqual(ids(await listAll(s)), [1, 2, 3, 4]);
      assert.equal((await s.get(1))?.term, 'Posted');
      assert.deepEqual(await s.importMany([]), []);
    });

    test('category and search filter, combined with AND', async () => {
      await s.importMany([
        term(1, 'React hooks', 'frontend'),
        term(2, 'Reactive streams', 'backend'),
        term(3, 'Kubernetes', 'devops'),
        term(4, 'Hooks in Git', 'devops'),
      ]);
      assert.deepEqual(ids(await listAll(s, { category: 'devops' })), [3, 4]);
      assert.deepEqual(ids(await listAll(s, { search: 'react' })), [1, 2]);
      assert.deepEqual(ids(await listAll(s, { search: 'HOOKS' })), [1, 4]);
      assert.deepEqual(ids(await listAll(s, { search: 'hooks', category: 'devops' })), [4]);
      assert.deepEqual(await listAll(s, { search: 'definition' }), []);
      assert.equal(await s.count({ search: 'hooks' }), 2);
      assert.equal(await s.count({ category: 'devops', search: 'kube' }), 1);
    });

    test('a count given atMost answers min(count, atMost), counted or not, before and after a write', async () => {
      await s.importMany([
        term(1, 'Cache line', 'devops'),
        term(2, 'Cache miss'),
        term(3, 'Write-back cache'),
        term(4, 'Kubernetes', 'devops'),
      ]);
      const cache: TermFilter = { text: { words: { has: { in: 'name', words: ['cache'] } } } };
      const prefix: TermFilter = {
        text: {
          words: { has: { in: 'any', words: [], prefix: 'cach' } },
          name: { isNot: 'cache' },
        },
      };
      const filters: TermFilter[] = [{}, { category: 'devops' }, { search: 'e' }, cache, prefix];
      const exact = async () => Promise.all(filters.map((f) => s.count(f)));
      const bounded = async (atMost: number) => Promise.all(filters.map((f) => s.count(f, atMost)));
      // Not yet counted, then counted (a kept count may answer), at every bound.
      for (const counted of [false, true]) {
        if (counted) assert.deepEqual(await exact(), [4, 2, 4, 3, 3]);
        assert.deepEqual(await bounded(0), [0, 0, 0, 0, 0]);
        assert.deepEqual(await bounded(1), [1, 1, 1, 1, 1]);
        assert.deepEqual(await bounded(3), [3, 2, 3, 3, 3]);
        assert.deepEqual(await bounded(10), [4, 2, 4, 3, 3]);
      }
      await s.create(term(5, 'Cache stampede', 'devops'));
      assert.deepEqual(await bounded(10), [5, 3, 5, 4, 4]);
      assert.deepEqual(await bounded(4), [4, 3, 4, 4, 4]);
      assert.deepEqual(await exact(), [5, 3, 5, 4, 4]);
    });

    test('a word few of many terms have: every order and page, and after a write', async () => {
      // 25,000 terms, 3 with the word: too few for walking the order to pay on PostgreSQL,
      // which then reads the matches through the word index and sorts them.
      const many = Array.from({ length: 25_000 }, (_, i) => term(i + 1, `Filler ${i + 1}`));
      for (const [at, id] of [
        [100, 3],
        [12_000, 2],
        [24_000, 1],
      ] as const) {
        many[at] = term(at + 1, `Zebra ${id}`);
      }
      await s.importMany(many);
      const zebra: TermFilter = { text: { words: { has: { in: 'name', words: ['zebra'] } } } };
      const page = async (options: ListOptions) => names(await listAll(s, zebra, options));
      assert.deepEqual(await page({ limit: 2 }), ['Zebra 3', 'Zebra 2']);
      assert.deepEqual(await page({ limit: 2, offset: 1 }), ['Zebra 2', 'Zebra 1']);
      assert.deepEqual(await page({ limit: 2, sort: 'term' }), ['Zebra 1', 'Zebra 2']);
      assert.deepEqual(await page({ limit: 1, sort: 'id' }), ['Zebra 3']);
      assert.deepEqual(await page({ limit: 5, sort: '-id' }), ['Zebra 1', 'Zebra 2', 'Zebra 3']);
      assert.equal(await s.count(zebra, 2), 2);
      await s.create(term(30_000, 'Zebra 0'));
      assert.deepEqual(await page({ limit: 2, offset: 2 }), ['Zebra 1', 'Zebra 0']);
      assert.equal(await s.count(zebra), 4);
    });

    test('search folds Unicode case: über finds Über, strasse finds Straße and STRAẞE, final sigma', async () => {
      await s.importMany([
        term(1, 'Über-Cache'),
        term(2, 'Straße'),
        term(3, 'ΟΔΟΣ'),
        term(4, 'ﬁle'),
        term(5, 'HAUPTSTRAẞE'),
      ]);
      assert.deepEqual(ids(await listAll(s, { search: 'über' })), [1]);
      assert.deepEqual(ids(await listAll(s, { search: 'STRASSE' })), [2, 5]);
      assert.deepEqual(ids(await listAll(s, { search: 'straße' })), [2, 5]);
      assert.deepEqual(ids(await listAll(s, { search: 'STRAẞE' })), [2, 5]);
      assert.deepEqual(ids(await listAll(s, { search: 'οδος' })), [3]);
      assert.deepEqual(ids(await listAll(s, { search: 'ος' })), [3]);
      assert.deepEqual(ids(await listAll(s, { search: 'FILE' })), [4]);
    });

    test('search matches canonically equivalent text: NFD finds NFC and NFC finds NFD', async () => {
      const nfc = 'Café Crème'.normalize('NFC');
      const nfd = 'Café Crème'.normalize('NFD');
      assert.notEqual(nfc, nfd);
      await s.importMany([term(1, nfc), term(2, nfd), term(3, 'Cafe Creme')]);
      for (const pattern of [nfc, nfd, 'CAFÉ'.normalize('NFD'), 'café'.normalize('NFC')]) {
        assert.deepEqual(ids(await listAll(s, { search: pattern })), [1, 2], pattern);
        assert.equal(await s.count({ search: pattern }), 2);
      }
      // Still a literal substring of the (composed) name: a bare e or accent is not é.
      assert.deepEqual(ids(await listAll(s, { search: 'cafe' })), [3]);
      assert.deepEqual(ids(await listAll(s, { search: '\u0301' })), []);
      // The names come back exactly as stored.
      assert.deepEqual(names(await listAll(s)), [nfc, nfd, 'Cafe Creme']);
    });

    test('search is a literal substring: % _ \\ * . and brackets match only themselves', async () => {
      const stored = [
        term(1, '100% uptime'),
        term(2, '100 uptime'),
        term(3, 'snake_case'),
        term(4, 'snakeXcase'),
        term(5, 'C:\\path'),
        term(6, 'C:path'),
        term(7, 'glob *.ts [a-z]'),
        term(8, 'glob x.ts a'),
      ];
      await s.importMany(stored);
      assert.deepEqual(ids(await listAll(s, { search: '0%' })), [1]);
      assert.deepEqual(ids(await listAll(s, { search: '%' })), [1]);
      assert.deepEqual(ids(await listAll(s, { search: 'e_c' })), [3]);
      assert.deepEqual(ids(await listAll(s, { search: '_' })), [3]);
      assert.deepEqual(ids(await listAll(s, { search: ':\\' })), [5]);
      assert.deepEqual(ids(await listAll(s, { search: '\\' })), [5]);
      assert.deepEqual(ids(await listAll(s, { search: '*.ts [a-z]' })), [7]);
      assert.deepEqual(ids(await listAll(s, { search: '[a-z]' })), [7]);
      assert.equal(await s.count({ search: '%' }), 1);
    });

    test('a page of a pattern many terms hold is the same slice of the whole list, in every order', async () => {
      // A page may be read by a scan in the list's order, the whole list through the index.
      const many = Array.from({ length: 3000 }, (_, i) =>
        term(i + 1, i % 3 === 0 ? `Router ${(i * 7919) % 3000}` : `Filler ${i}`),
      );
      await s.importMany(many);
      for (const sort of [undefined, 'term', '-term', 'id', '-id'] as const) {
        const whole = ids(await listAll(s, { search: 'router' }, { sort }));
        assert.equal(whole.length, 1000);
        for (const [offset, limit] of [
          [0, 10],
          [990, 20],
          [400, 100],
        ] as const) {
          const page = ids(await listAll(s, { search: 'router' }, { sort, offset, limit }));
          assert.deepEqual(page, whole.slice(offset, offset + limit), `${sort} ${offset}`);
        }
      }
      assert.equal(await s.count({ search: 'router' }), 1000);
    });

    test('a long search finds the whole pattern, not terms that hold only its pieces', async () => {
      // An index asked for some of a pattern's trigrams (both stores) lets these through.
      await s.importMany([
        term(1, 'Cluster 534211'),
        term(2, 'Cluster 534 211'),
        term(3, 'Cluster 211534'),
        term(4, 'Cluster 5342110'),
        term(5, 'KUBERNETES'),
        term(6, 'kuber netes'),
        term(7, 'netes kuber'),
        term(8, 'Repeat 942942942'),
        term(9, 'Repeat 942 942'),
      ]);
      assert.deepEqual(ids(await listAll(s, { search: '534211' })), [1, 4]);
      assert.deepEqual(ids(await listAll(s, { search: '534211', category: 'backend' })), [1, 4]);
      assert.deepEqual(ids(await listAll(s, { search: 'Kubernetes' })), [5]);
      assert.deepEqual(ids(await listAll(s, { search: '942942' })), [8]);
      assert.deepEqual(ids(await listAll(s, { search: '2942942' })), [8]);
      assert.equal(await s.count({ search: '534211' }), 2);
      assert.equal(await s.count({ search: 'kubernetes' }), 1);
      await s.create(term(10, 'Cluster 534-211'));
      assert.equal(await s.count({ search: '534211' }), 2);
      assert.deepEqual(ids(await listAll(s, { search: '534211' }, { limit: 1, offset: 1 })), [4]);
    });

    test('control characters, U+0000 included, are stored, searched and sorted like any other', async () => {
      await s.importMany([
        term(1, 'a\u0001Ab'),
        term(2, 'a\u0000b'),
        term(3, 'a b'),
        term(4, 'a\u0001b'),
        term(5, 'a\u0000'),
      ]);
      await s.create({ ...term(6), definition: 'line\u0000\u0001A\u0001B end' });
      assert.equal((await s.get(1))?.term, 'a\u0001Ab');
      assert.equal((await s.get(2))?.term, 'a\u0000b');
      assert.equal((await s.get(6))?.definition, 'line\u0000\u0001A\u0001B end');
      assert.deepEqual(ids(await listAll(s, { search: '\u0000' })), [2, 5]);
      assert.deepEqual(ids(await listAll(s, { search: '\u0000B' })), [2]);
      assert.deepEqual(ids(await listAll(s, { search: '\u0001' })), [1, 4]);
      assert.deepEqual(ids(await listAll(s, { search: '\u0001a' })), [1]);
      assert.deepEqual(ids(await listAll(s, { search: 'a\u0001' })), [1, 4]);
      assert.deepEqual(ids(await listAll(s, { search: 'ab' })), [1]);
      // Byte order: U+0000 < U+0001 < space; a prefix before its extensions.
      assert.deepEqual(ids(await listAll(s, { search: 'a' }, { sort: 'term' })), [5, 2, 1, 4, 3]);
    });

    test('sort by term orders by folded name in code point order, ties in creation order', async () => {
      // Fullwidth Ａ (U+FF21) sorts before 😀 (U+1F600) by code point, after it in UTF-16.
      await s.importMany([
        term(1, 'banana'),
        term(2, '😀 smile'),
        term(3, 'Apple'),
        term(4, 'Ａpple'),
        term(5, 'éclair'),
        term(6, 'APPLE'),
        term(7, 'Zebra'),
      ]);
      const ascending = ['Apple', 'APPLE', 'banana', 'Zebra', 'éclair', 'Ａpple', '😀 smile'];
      assert.deepEqual(names(await listAll(s, {}, { sort: 'term' })), ascending);
      assert.deepEqual(names(await listAll(s, {}, { sort: '-term' })), [
        '😀 smile',
        'Ａpple',
        'éclair',
        'Zebra',
        'banana',
        'Apple',
        'APPLE',
      ]);
    });

    test('sort by id, both directions, ties in creation order', async () => {
      await s.create(term(5, 'five a'));
      await s.importMany([term(-3), term(10), term(0)]);
      await s.create(term(5, 'five b'));
      assert.deepEqual(names(await listAll(s, {}, { sort: 'id' })), [
        'Term -3',
        'Term 0',
        'five a',
        'five b',
        'Term 10',
      ]);
      assert.deepEqual(names(await listAll(s, {}, { sort: '-id' })), [
        'Term 10',
        'five a',
        'five b',
        'Term 0',
        'Term -3',
      ]);
    });

    test('offset and limit page through any order and filter', async () => {
      await s.importMany(Array.from({ length: 10 }, (_, i) => term(i + 1)));
      assert.deepEqual(ids(await listAll(s, {}, { offset: 2, limit: 3 })), [3, 4, 5]);
      assert.deepEqual(ids(await listAll(s, {}, { offset: 8 })), [9, 10]);
      assert.deepEqual(ids(await listAll(s, {}, { offset: 20 })), []);
      assert.deepEqual(ids(await listAll(s, {}, { limit: 0 })), []);
      assert.deepEqual(ids(await listAll(s, {}, { sort: '-id', offset: 1, limit: 2 })), [9, 8]);
      assert.deepEqual(ids(await listAll(s, { search: 'term 1' }, { offset: 1 })), [10]);
    });

    test('a long list streams in several chunks, complete and in order', async () => {
      const count = 1234;
      await s.importMany(Array.from({ length: count }, (_, i) => term(count - i)));
      let chunks = 0;
      const seen: number[] = [];
      for await (const chunk of s.list({})) {
        chunks += 1;
        seen.push(...ids(chunk));
      }
      assert.ok(chunks > 1, `expected several chunks, got ${chunks}`);
      assert.deepEqual(
        seen,
        Array.from({ length: count }, (_, i) => count - i),
      );
      assert.deepEqual(ids(await listAll(s, {}, { sort: 'id', offset: 499, limit: 502 })), [
        ...Array.from({ length: 502 }, (_, i) => i + 500),
      ]);
      assert.equal(await s.count({}), count);
    });

    test('a list abandoned part-way leaves the store fully usable', async () => {
      await s.importMany(Array.from({ length: 1500 }, (_, i) => term(i)));
      // More abandoned lists than a PostgreSQL pool has connections: each must give its back.
      for (let round = 0; round < 15; round += 1) {
        for await (const chunk of s.list({})) {
          assert.equal(chunk[0]?.id, 0);
          break;
        }
      }
      await s.create(term(9999));
      assert.equal(await s.count({}), 1501);
      await s.check();
    });

    test('revision changes on every write and only then', async () => {
      const seen = new Set<string>([await s.revision()]);
      const expectChange = async () => {
        const revision = await s.revision();
        assert.ok(!seen.has(revision), `revision ${revision} repeated`);
        seen.add(revision);
      };
      await s.create(term(1));
      await expectChange();
      await s.create(term(1));
      await expectChange();
      await s.importMany([term(2), term(3)]);
      await expectChange();
      const before = await s.revision();
      await s.importMany([term(2)]);
      await listAll(s);
      await s.count({});
      assert.equal(await s.revision(), before);
      await s.importMany([term(2), term(4)]);
      await expectChange();
    });
  });
}

for (const backend of backends()) {
  describe(`store contract across stores on one storage (${backend.name})`, () => {
    let location: Awaited<ReturnType<typeof backend.location>>;
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

    test('what one store writes, the other reads, and importMany sees it as existing', async () => {
      const before = await second.revision();
      await first.create(term(1, 'From first'));
      assert.notEqual(await second.revision(), before);
      assert.equal((await second.get(1))?.term, 'From first');
      assert.deepEqual(await second.importMany([term(1), term(2)]), ['exists', 'created']);
      assert.deepEqual(ids(await listAll(first)), [1, 2]);
    });

    test('reopening the storage keeps every term, in order', async () => {
      await first.close();
      first = await location.open();
      assert.deepEqual(ids(await listAll(first)), [1, 2]);
    });
  });
}
