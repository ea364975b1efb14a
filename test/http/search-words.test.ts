import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import pg from 'pg';
import { nameFold } from '../../src/glossary/other-names.ts';
import type { Category } from '../../src/glossary/term.ts';
import {
  editDistance,
  nameKey,
  typoCandidate,
  typosAllowed,
  wordsOf,
} from '../../src/glossary/words.ts';
import { sampleTerm, startApp, type TestApp } from '../helpers/app.ts';
import { backends } from '../helpers/backends.ts';
import { faultsOf, getJson, postJson } from '../helpers/http.ts';

/**
 * `GET /terms?q=`: search-and-reading.md, on every store, and the same answers on every store
 * (a property test against the decisions written out as plain code).
 */

type Listed = { id: number; term: string }[];
const ids = (body: unknown) => (body as Listed).map((term) => term.id);

/** The decisions as code: the ids `q` must answer, in order, for terms in creation order. */
function reference(
  terms: readonly {
    id: number;
    term: string;
    definition: string;
    category: string;
    aliases?: string[];
    avoid?: string[];
  }[],
  q: string,
  category?: string,
): number[] {
  const wanted = terms.filter((term) => !category || term.category === category);
  if (q.trim() === '') return wanted.map((term) => term.id);
  const query = wordsOf(q);
  if (query.length === 0) return [];
  const key = nameKey(q);
  const ranked: { id: number; tier: number; typos: number; at: number }[] = [];
  terms.forEach((term, at) => {
    if (category && term.category !== category) return;
    // An alias is a name like the term's own; a name to avoid ranks below every name.
    const names = [term.term, ...(term.aliases ?? [])];
    const name = names.flatMap(wordsOf);
    const avoid = (term.avoid ?? []).flatMap(wordsOf);
    const all = [...name, ...wordsOf(term.definition), ...avoid];
    const match = (word: string, last: boolean, words: string[]) => {
      if (words.some((w) => w === word || (last && w.startsWith(word)))) return 'exact';
      const allowed = typosAllowed(word);
      const near = words.some(
        (w) =>
          allowed > 0 &&
          typoCandidate(w) &&
          !(last && w.startsWith(word)) &&
          editDistance(word, w, allowed) <= allowed,
      );
      return near ? 'typo' : 'none';
    };
    const inName = query.map((word, i) => match(word, i === query.length - 1, name));
    const inAvoid = query.map((word, i) => match(word, i === query.length - 1, avoid));
    const anywhere = query.map((word, i) => match(word, i === query.length - 1, all));
    const keys = names.map(nameKey);
    // Every query word a whole word of the names (the last one too, not as a prefix).
    const wholeInName = query.every((word) => name.includes(word));
    let tier: number;
    let typos = 0;
    if (keys.includes(key)) tier = 0;
    else if (keys.some((termKey) => termKey.startsWith(`${key} `))) tier = 1;
    else if (wholeInName) tier = 2;
    else if (keys.some((termKey) => termKey.startsWith(key))) tier = 3;
    else if (inName.every((m) => m !== 'none')) {
      tier = 4;
      typos = inName.filter((m) => m === 'typo').length;
    } else if (inAvoid.every((m) => m !== 'none')) {
      tier = 5;
      typos = inAvoid.filter((m) => m === 'typo').length;
    } else if (anywhere.every((m) => m !== 'none')) {
      tier = 6;
      typos = anywhere.filter((m) => m === 'typo').length;
    } else return;
    ranked.push({ id: term.id, tier, typos, at });
  });
  return ranked
    .sort((a, b) => a.tier - b.tier || a.typos - b.typos || a.at - b.at)
    .map((entry) => entry.id);
}

const GLOSSARY = [
  sampleTerm(1, { term: 'Cache invalidation', definition: 'One of the two hard things.' }),
  sampleTerm(2, { term: 'Kubernetes', definition: 'Runs containers; also called k8s.' }),
  sampleTerm(3, { term: 'Pod', definition: 'The smallest unit Kubernetes schedules.' }),
  sampleTerm(4, { term: 'Cache', definition: 'A store of answers.', category: 'frontend' }),
  sampleTerm(5, { term: 'Café au lait', definition: 'Coffee with milk.' }),
  sampleTerm(6, { term: 'Idempotency', definition: 'Doing it twice is doing it once.' }),
  sampleTerm(7, { term: 'Write-through CACHE', definition: 'Writes go to the cache and below.' }),
  sampleTerm(8, { term: 'CDN', definition: 'Serves a cache near the reader.', category: 'devops' }),
  sampleTerm(9, { term: 'Cachet', definition: 'Prestige.' }),
];

for (const backend of backends()) {
  describe(`GET /terms?q= (${backend.name})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp(backend);
      assert.equal((await postJson(t.app, '/terms/bulk', GLOSSARY)).statusCode, 207);
    });
    after(() => t.close());
    const find = async (query: string, extra = '') =>
      ids(await getJson(t.app, `/terms?q=${encodeURIComponent(query)}${extra}`));

    test('finds words in definitions, case- and accent-insensitively', async () => {
      assert.deepEqual(await find('kubernetes'), [2, 3]);
      assert.deepEqual(await find('CAFE'), [5]);
      assert.deepEqual(await find('café au'), [5]);
      assert.deepEqual(await find('coffee milk'), [5]);
    });

    test('capital sharp s ẞ is ss, as ß is', async () => {
      const created = await postJson(t.app, '/terms', {
        id: 100,
        term: 'MAẞSTAB',
        definition: 'The ratio of a distance on a map to the distance on the ground.',
        category: 'docs-as-code',
      });
      assert.equal(created.statusCode, 201);
      for (const query of ['massstab', 'maßstab', 'MAẞSTAB', 'MASSSTAB']) {
        assert.deepEqual(await find(query), [100], query);
      }
      assert.deepEqual(ids(await getJson(t.app, '/terms?search=aßs')), [100]);
      // The glossary the other tests count, as it was.
      assert.equal((await t.app.inject({ method: 'DELETE', url: '/terms/100' })).statusCode, 204);
    });

    test('the last word also as a prefix; every word must match', async () => {
      assert.deepEqual(await find('kube'), [2, 3]);
      assert.deepEqual(await find('cache inval'), [1]);
      assert.deepEqual(await find('kube store'), []);
      assert.deepEqual(await find('inval cache'), [], 'only the last word is a prefix');
    });

    test('typos: one edit from 5 letters, two from 9, none below', async () => {
      assert.deepEqual(await find('kuberntes'), [2, 3]);
      assert.deepEqual(await find('kbuernetes'), [2, 3], 'a swap is one edit');
      assert.deepEqual(await find('idempotncy'), [6]);
      assert.deepEqual(await find('idmpotncy'), [6], 'two edits in nine letters');
      assert.deepEqual(await find('contaners'), [2]);
      assert.deepEqual(await find('cahe'), [], 'four letters: no typo');
      // One edit from cache and from cachet: all in the name with one typo, then CDN.
      assert.deepEqual(await find('cachex'), [1, 4, 7, 9, 8]);
    });

    test('ranked: exact name, name starting so, all words in the name, then definitions', async () => {
      // Cache (exact), Cache invalidation (starts with the word), Write-through CACHE (the
      // word in the name), Cachet (starts with it only as a prefix), CDN (in the definition
      // only); each group in creation order.
      assert.deepEqual(await find('cache'), [4, 1, 7, 9, 8]);
      assert.deepEqual(await find('cache', '&category=frontend'), [4]);
    });

    test('pages with X-Total-Count and Link; sort orders by its key instead', async () => {
      const response = await t.app.inject('/terms?q=cache&limit=2&offset=1');
      assert.deepEqual(ids(response.json()), [1, 7]);
      assert.equal(response.headers['x-total-count'], '5');
      assert.match(String(response.headers.link), /offset=3>; rel="next"/);
      assert.deepEqual(await find('cache', '&sort=term'), [4, 1, 9, 8, 7]);
      assert.deepEqual(await find('cache', '&search=inval'), [1]);
    });

    test('an empty or blank q is no filter; 201 characters are a 422 at ["query","q"]', async () => {
      assert.equal((await find('')).length, GLOSSARY.length);
      assert.equal((await find('   ')).length, GLOSSARY.length);
      assert.deepEqual(await find('!!!'), [], 'no word in it finds nothing');
      const faults = faultsOf(await t.app.inject(`/terms?q=${'a'.repeat(201)}`));
      assert.deepEqual(
        faults.map((fault) => (fault as { loc: unknown[] }).loc),
        [['query', 'q']],
      );
    });
  });

  describe(`q follows every change at once (${backend.name})`, () => {
    test('new, edited, deleted and restored words are found as they now are, also elsewhere', async () => {
      const location = await backend.location();
      const fromLocation = { ...backend, open: () => location.open() };
      const writer = await startApp(fromLocation);
      const reader = await startApp(fromLocation);
      try {
        const find = async (query: string) =>
          ids(await getJson(reader.app, `/terms?q=${encodeURIComponent(query)}`));
        await postJson(writer.app, '/terms', sampleTerm(1, { term: 'Sharding' }));
        assert.deepEqual(await find('shardng'), [1]);
        await writer.app.inject({
          method: 'PATCH',
          url: '/terms/1',
          payload: { definition: 'Splitting rows across partitions.' },
        });
        assert.deepEqual(await find('partitons'), [1], 'a typo of a word just written');
        await writer.app.inject({ method: 'PATCH', url: '/terms/1', payload: { term: 'Shards' } });
        assert.deepEqual(await find('sharding'), []);
        assert.deepEqual(await find('shardinq'), [], 'a typo of the word the term no longer has');
        assert.deepEqual(await find('shards'), [1]);
        await writer.app.inject({ method: 'DELETE', url: '/terms/1' });
        assert.deepEqual(await find('shards'), []);
        assert.deepEqual(await find('sharsd'), [], 'a typo of the deleted word');
        const history = (await getJson(reader.app, '/terms/1/history')) as { revision: number }[];
        await writer.app.inject({
          method: 'POST',
          url: '/terms/1/restore',
          payload: { revision: history[0]?.revision },
        });
        assert.deepEqual(await find('shard'), [1]);
      } finally {
        await writer.close();
        await reader.close();
        await location.dispose();
      }
    });
  });
}

/**
 * More matches than a store ranks in one go (PostgreSQL ranks at most 2,000 at once and reads
 * a larger ranking level by level, the first two levels of a first page in one statement).
 * `cache`: the exact name and names starting with it fill any page; `zeta`: two terms in the
 * first two levels, the rest of each page from the levels after them (a name holding it, then
 * definitions).
 */
const MANY = Array.from({ length: 2400 }, (_, i) => {
  let term = `Entry ${i}`;
  if (i % 600 === 0) term = 'Cache';
  else if (i % 3 === 0) term = `Cache line ${i}`;
  else if (i % 3 === 1) term = `Write cache ${i}`;
  if (i === 7) term = 'Zeta';
  if (i === 8) term = 'Zeta function';
  if (i === 9) term = 'Riemann zeta';
  const definition = i % 3 === 2 ? `Kept near the cache; zeta ${i}.` : `Zeta number ${i}.`;
  const category: Category = i % 2 === 0 ? 'backend' : 'devops';
  return { id: 100_000 + i, term, definition, category, see_also: [] };
});

for (const backend of backends()) {
  describe(`q with more matches than one statement ranks (${backend.name})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp(backend);
      assert.equal((await postJson(t.app, '/terms/bulk', MANY)).statusCode, 207);
    });
    after(() => t.close());

    for (const [query, category] of [
      ['cache', undefined],
      ['zeta', undefined],
      ['cache', 'devops'],
      ['zeta', 'backend'],
    ] as const) {
      test(`q=${query}${category ? ` in ${category}` : ''}: pages are slices of the ranking`, async () => {
        const expected = reference(MANY, query, category);
        assert.ok(expected.length > 1000, `${expected.length} matches`);
        const base = `/terms?q=${query}${category ? `&category=${category}` : ''}`;
        assert.deepEqual(ids(await getJson(t.app, base)), expected);
        for (const [limit, offset] of [
          [1, 0],
          [3, 0],
          [20, 0],
          [700, 0],
          [20, 5],
          [50, 790],
        ] as const) {
          const page = await t.app.inject(`${base}&limit=${limit}&offset=${offset}`);
          assert.deepEqual(
            ids(page.json()),
            expected.slice(offset, offset + limit),
            `limit=${limit}&offset=${offset}`,
          );
          assert.equal(page.headers['x-total-count'], String(expected.length));
        }
      });
    }

    // PostgreSQL keeps a broad first page by seq until the revision moves (src/store/postgres/ranking-reads.ts):
    // asked again it is read by seq, and every kind of write shows in it at once.
    test('a first page asked again is the same page, and each write shows in it at once', async () => {
      const terms: { id: number; term: string; definition: string; category: Category }[] =
        MANY.map((term) => ({ ...term }));
      const page = async () => {
        const response = await t.app.inject('/terms?q=cache&limit=20');
        assert.equal(response.statusCode, 200);
        return response.json() as { id: number; definition: string }[];
      };
      const expectPage = async (why: string) => {
        const expected = reference(terms, 'cache').slice(0, 20);
        const first = await page();
        assert.deepEqual(ids(first), expected, why);
        // Asked again at the same revision, concurrently: the same terms, word for word.
        const again = await Promise.all([page(), page(), page()]);
        for (const answer of again) assert.deepEqual(answer, first, `${why}, asked again`);
        return first;
      };
      const before = await expectPage('at first');

      const edited = before[5] as { id: number };
      const patch = await t.app.inject({
        method: 'PATCH',
        url: `/terms/${edited.id}`,
        payload: { definition: 'Changed after the page was kept.' },
      });
      assert.equal(patch.statusCode, 200);
      (terms.find((term) => term.id === edited.id) as { definition: string }).definition =
        'Changed after the page was kept.';
      const afterEdit = await expectPage('after an edit');
      assert.equal(afterEdit[5]?.definition, 'Changed after the page was kept.');

      const removed = (before[2] as { id: number }).id;
      assert.equal(
        (await t.app.inject({ method: 'DELETE', url: `/terms/${removed}` })).statusCode,
        204,
      );
      terms.splice(
        terms.findIndex((term) => term.id === removed),
        1,
      );
      await expectPage('after a removal');

      const added = {
        id: 200_000,
        term: 'Cache',
        definition: 'Added last.',
        category: 'devops' as Category,
        see_also: [],
      };
      assert.equal((await postJson(t.app, '/terms', added)).statusCode, 201);
      terms.push(added);
      const afterCreate = await expectPage('after a new exact name');
      assert.ok(ids(afterCreate).includes(200_000));
    });

    // PostgreSQL carries a kept first page across the writes that rank after its last term
    // (ranking-reads.ts): the change log answers, and the levels are not read again. The
    // statements the store sends are watched on the driver's client.
    if (backend.name === 'postgres')
      test('a first page is carried across creates that rank after it, and read again for one in it', async () => {
        const sent: string[] = [];
        const original = pg.Client.prototype.query;
        pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
          const config = args[0] as { name?: unknown } | undefined;
          if (typeof config?.name === 'string') sent.push(config.name.replace(/-\d+$/, ''));
          return (original as (...args: unknown[]) => unknown).apply(this, args);
        } as typeof original;
        try {
          const page = async (why: string) => {
            sent.length = 0;
            const response = await t.app.inject('/terms?q=cache&limit=20');
            const all = (await getJson(t.app, '/terms')) as Parameters<typeof reference>[0];
            assert.deepEqual(ids(response.json()), reference(all, 'cache').slice(0, 20), why);
            return [...sent];
          };
          const create = async (id: number, term: string) => {
            const created = { id, term, definition: 'New.', category: 'devops', see_also: [] };
            assert.equal((await postJson(t.app, '/terms', created)).statusCode, 201);
          };
          await page('kept');
          // The page ends in the level of names starting with the query: a name holding it
          // comes in a later level, a name starting with it after the page's last term.
          await create(300_001, 'Write cache 300001');
          const later = await page('a create in a later level');
          assert.ok(later.includes('first-page-carry'), later.join());
          assert.ok(!later.includes('levels'), `carried, not read again: ${later.join()}`);
          await create(300_002, 'Cache line 300002');
          const after = await page('a create in the last level, after its last term');
          assert.ok(!after.includes('levels'), `carried, not read again: ${after.join()}`);
          await create(300_003, 'Cache');
          const within = await page('a create in the first level');
          assert.ok(within.includes('levels'), `read again: ${within.join()}`);
        } finally {
          pg.Client.prototype.query = original;
        }
      });
  });
}

/**
 * PostgreSQL reads a first page's levels a few at a time, as far as the estimates its plans
 * were chosen by (counts of the last minutes) say the page goes (ranking-reads.ts): when
 * removals have made them wrong, the levels after them fill the rest of the page.
 */
for (const backend of backends()) {
  describe(`q's first page after the estimates went stale (${backend.name})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp(backend);
    });
    after(() => t.close());

    test('a level that held the page and lost most of its terms: the levels after it fill the rest', async () => {
      const named = Array.from({ length: 30 }, (_, i) =>
        sampleTerm(1 + i, { term: `Zork ${i}`, definition: 'A name.' }),
      );
      const defined = Array.from({ length: 30 }, (_, i) =>
        sampleTerm(101 + i, { term: `Entry ${i}`, definition: `Mentions zork ${i}.` }),
      );
      assert.equal((await postJson(t.app, '/terms/bulk', [...named, ...defined])).statusCode, 207);
      const page = async () => {
        const response = await t.app.inject('/terms?q=zork&limit=20');
        assert.equal(response.statusCode, 200);
        return { ids: ids(response.json()), total: response.headers['x-total-count'] };
      };
      assert.deepEqual(await page(), {
        ids: named.slice(0, 20).map((term) => term.id),
        total: '60',
      });
      for (const term of named.slice(5)) {
        const removed = await t.app.inject({ method: 'DELETE', url: `/terms/${term.id}` });
        assert.equal(removed.statusCode, 204);
      }
      assert.deepEqual(await page(), {
        ids: [...named.slice(0, 5), ...defined.slice(0, 15)].map((term) => term.id),
        total: '35',
      });
    });
  });
}

for (const backend of backends()) {
  describe(`GET /terms?q= and other names (${backend.name})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp(backend);
      const terms = [
        sampleTerm(1, { term: 'Container', definition: 'Runs on Kubernetes.' }),
        sampleTerm(2, {
          term: 'Kubernetes',
          definition: 'Schedules containers.',
          aliases: ['K8s', 'kube cluster'],
          avoid: ['Kubernates'],
        }),
        sampleTerm(3, { term: 'K8s operator', definition: 'Automates a service.' }),
        sampleTerm(4, {
          term: 'Webhook',
          definition: 'An HTTP callback.',
          avoid: ['web hook', 'Web-Hook URL'],
        }),
        sampleTerm(5, { term: 'Hook', definition: 'A web hook is one kind.' }),
      ];
      assert.equal((await postJson(t.app, '/terms/bulk', terms)).statusCode, 207);
    });
    after(() => t.close());
    const find = async (query: string) =>
      ids(await getJson(t.app, `/terms?q=${encodeURIComponent(query)}`));

    test('an alias ranks as the name does: exact, then starts with, then its words', async () => {
      // Exact alias first; then a name that starts with it; then the definitions.
      assert.deepEqual(await find('k8s'), [2, 3]);
      assert.deepEqual(await find('K8S operator'), [3]);
      assert.deepEqual(await find('kube'), [2, 1]);
      assert.deepEqual(await find('cluster kube'), [2]);
    });

    test('a name to avoid finds its term, below every name and alias match', async () => {
      assert.deepEqual(await find('hook url'), [4]);
      // A wrong name one typo from the name ranks by the name (and the definition below).
      assert.deepEqual(await find('kubernates'), [2, 1]);
      // The words "web hook": term 4 by its name to avoid, above term 5, whose definition has them.
      assert.deepEqual(await find('web hook'), [4, 5]);
      // "hook": term 5 by its name first; term 4 by a name to avoid, below.
      assert.deepEqual(await find('hook'), [5, 4]);
    });

    test('search= stays the name-only substring filter', async () => {
      assert.deepEqual(ids(await getJson(t.app, '/terms?search=k8s')), [3]);
      assert.deepEqual(ids(await getJson(t.app, '/terms?search=kubernates')), []);
    });
  });
}

/**
 * The rank order as a table (issue 32: `CI` ranked "Circuit breaker" with "CI pipeline"): a
 * query word found whole in a name ranks above one that only begins a longer word, each
 * created first here so creation order cannot explain the answer.
 */
const WHOLE_BEFORE_PREFIX = [
  sampleTerm(1, { term: 'Circuit breaker', definition: 'Stops calling a failing service.' }),
  sampleTerm(2, { term: 'Decoupled circuit', definition: 'Fails alone.' }),
  sampleTerm(3, { term: 'Jenkins CI', definition: 'A build server.' }),
  sampleTerm(4, { term: 'CI pipeline', definition: 'The steps every change goes through.' }),
  sampleTerm(5, { term: 'Build', definition: 'What CI runs first.' }),
  sampleTerm(6, { term: 'CI', definition: 'Continuous integration.' }),
  sampleTerm(7, { term: 'Cache line', definition: 'The unit a cache moves.' }),
  sampleTerm(8, { term: 'Cache', definition: 'A store of answers.', aliases: ['Cache tier'] }),
  sampleTerm(9, { term: 'Attach point', definition: 'Tachometer reading.' }),
  sampleTerm(10, { term: 'Tachyon', definition: 'A particle faster than light.' }),
  sampleTerm(11, { term: 'Speedometer', definition: 'Shows speed.', avoid: ['Tachograph'] }),
];
const RANK_TABLE: [query: string, order: number[], why: string][] = [
  [
    'CI',
    [6, 4, 3, 1, 2, 5],
    'exact, starts whole, whole inside, starts as prefix, prefix inside, definition',
  ],
  ['ci', [6, 4, 3, 1, 2, 5], 'case does not matter'],
  ['circ', [1, 2], 'a prefix only: starting with it first'],
  ['ci pipe', [4], 'the last word as a prefix'],
  ['cache', [8, 7], 'an alias is a name: exact first'],
  ['cache tie', [8], 'an alias starting with the words'],
  // A word that holds the prefix inside it ("attach") does not begin with it.
  ['tach', [10, 11, 9], 'a name beginning so, a name to avoid, then the definition'],
];

for (const backend of backends()) {
  describe(`q ranks a whole word above a prefix (${backend.name})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp(backend);
      assert.equal((await postJson(t.app, '/terms/bulk', WHOLE_BEFORE_PREFIX)).statusCode, 207);
    });
    after(() => t.close());

    for (const [query, order, why] of RANK_TABLE) {
      test(`q=${query}: ${why}`, async () => {
        const url = `/terms?q=${encodeURIComponent(query)}`;
        assert.deepEqual(ids(await getJson(t.app, url)), order);
        assert.deepEqual(reference(WHOLE_BEFORE_PREFIX, query), order, 'the reference agrees');
        // Paged, the same order: the levels are read one after the other.
        const page = await t.app.inject(`${url}&limit=2&offset=1`);
        assert.deepEqual(ids(page.json()), order.slice(1, 3));
      });
    }
  });
}

const stores = backends();
describe('q: the same answers on every store, and as the decisions say', () => {
  const apps: TestApp[] = [];
  before(async () => {
    for (const backend of stores) apps.push(await startApp(backend));
  });
  after(async () => {
    for (const app of apps) await app.close();
  });

  const STEMS = ['cache', 'café', 'Kubernetes', 'idempotent', 'shard', 'NAÏVE', 'résumé', 'k8s'];
  const wordArb = fc.oneof(
    fc.constantFrom(...STEMS),
    fc.constantFrom(...STEMS).map((stem) => `${stem}s`),
    fc.constantFrom(...STEMS).map((stem) => stem.slice(0, -1)),
    fc.constantFrom('x', 'of', 'the', '42', 'über', 'Straße'),
  );
  const textArb = fc.array(wordArb, { minLength: 1, maxLength: 4 }).map((words) => words.join(' '));
  const CATEGORIES: Category[] = ['frontend', 'backend', 'devops', 'docs-as-code'];
  const namesArb = fc.array(textArb, { maxLength: 2 });
  /**
   * Terms with, now and then, aliases and names to avoid. What the rules refuse is left out,
   * so every term is stored: an entry repeating one of its term's names, and a name to avoid
   * that is any term's name or alias (nameFold-equal).
   */
  const glossaryArb = fc
    .array(
      fc.record({
        term: textArb,
        definition: textArb,
        category: fc.constantFrom(...CATEGORIES),
        aliases: namesArb,
        avoid: namesArb,
      }),
      { minLength: 1, maxLength: 25 },
    )
    .map((glossary) => {
      const accepted = new Set<string>();
      const kept = glossary.map((entry) => {
        const seen = new Set([nameFold(entry.term)]);
        const keep = (names: string[]) =>
          names.filter((name) => !seen.has(nameFold(name)) && seen.add(nameFold(name)));
        const aliases = keep(entry.aliases);
        for (const name of [entry.term, ...aliases]) accepted.add(nameFold(name));
        return { ...entry, aliases, avoid: keep(entry.avoid) };
      });
      return kept.map((entry) => {
        const avoid = entry.avoid.filter((name) => !accepted.has(nameFold(name)));
        const { aliases: _a, avoid: _v, ...rest } = entry;
        return {
          ...rest,
          ...(entry.aliases.length > 0 && { aliases: entry.aliases }),
          ...(avoid.length > 0 && { avoid }),
        };
      });
    });
  /**
   * A query for a glossary: words of one of its terms (or, now and then, any word), some
   * mistyped: a letter dropped, two swapped, one changed, or cut to a prefix.
   */
  const queryFor = (
    glossary: { term: string; definition: string; aliases?: string[]; avoid?: string[] }[],
  ) =>
    fc
      .array(
        fc.tuple(
          fc.oneof(
            {
              weight: 4,
              arbitrary: fc.constantFrom(
                ...glossary.flatMap((t) =>
                  [t.term, t.definition, ...(t.aliases ?? []), ...(t.avoid ?? [])]
                    .join(' ')
                    .split(' '),
                ),
              ),
            },
            { weight: 1, arbitrary: wordArb },
          ),
          fc.nat(6),
          fc.constantFrom('keep', 'keep', 'drop', 'swap', 'change', 'prefix'),
        ),
        { minLength: 1, maxLength: 3 },
      )
      .map((words) =>
        words
          .map(([word, at, edit]) => {
            const i = Math.min(at, word.length - 1);
            if (edit === 'drop') return word.slice(0, i) + word.slice(i + 1);
            if (edit === 'swap' && i > 0)
              return word.slice(0, i - 1) + word[i] + word[i - 1] + word.slice(i + 1);
            if (edit === 'change') return `${word.slice(0, i)}q${word.slice(i + 1)}`;
            if (edit === 'prefix') return word.slice(0, Math.max(1, i));
            return word;
          })
          .join(' '),
      );

  test('random glossaries and queries: every store answers the reference, in order', async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(
        glossaryArb.chain((glossary) =>
          fc.tuple(
            fc.constant(glossary),
            fc.array(queryFor(glossary), { minLength: 1, maxLength: 4 }),
            fc.option(fc.constantFrom(...CATEGORIES)),
          ),
        ),
        async ([glossary, queries, category]) => {
          round += 1;
          const terms = glossary.map((entry, i) => ({
            ...entry,
            id: round * 1000 + i,
            see_also: [],
          }));
          for (const app of apps) {
            // Each round in a glossary of its own: earlier rounds' terms are removed first.
            const listed = ids(await getJson(app.app, '/terms'));
            for (const id of listed)
              await app.app.inject({ method: 'DELETE', url: `/terms/${id}` });
            assert.equal((await postJson(app.app, '/terms/bulk', terms)).statusCode, 207);
          }
          for (const query of queries) {
            const expected = reference(terms, query, category ?? undefined);
            const extra = category ? `&category=${category}` : '';
            for (const [i, app] of apps.entries()) {
              const url = `/terms?q=${encodeURIComponent(query)}${extra}`;
              assert.deepEqual(
                ids(await getJson(app.app, url)),
                expected,
                `${stores[i]?.name}: ${url}`,
              );
              const page = await app.app.inject(`${url}&limit=2&offset=1`);
              assert.deepEqual(ids(page.json()), expected.slice(1, 3), `${url} page`);
              assert.equal(page.headers['x-total-count'], String(expected.length));
            }
          }
        },
      ),
      { numRuns: Math.ceil(Number(process.env.HOSTILE_RUNS ?? 200) / 4) },
    );
  });
});

/**
 * A ranking's first page asked again after every kind of write: PostgreSQL carries a page it
 * keeps across the writes that rank after its last term, or match none of its levels
 * (ranking-reads.ts); every store answers the reference after each write.
 */
describe('q: a first page asked again after each write is the ranking', () => {
  const apps: TestApp[] = [];
  before(async () => {
    for (const backend of stores) apps.push(await startApp(backend));
  });
  after(async () => {
    for (const app of apps) await app.close();
  });

  const WORDS = ['cache', 'cachet', 'caches', 'shard', 'queue', 'write', 'line'];
  const textArb = fc
    .array(fc.constantFrom(...WORDS, '7', '42'), { minLength: 1, maxLength: 3 })
    .map((words) => words.join(' '));
  const termArb = fc.record({
    term: textArb,
    definition: textArb,
    category: fc.constantFrom<Category>('backend', 'devops'),
  });
  const writeArb = fc.oneof(
    { weight: 3, arbitrary: fc.record({ create: termArb }) },
    {
      weight: 2,
      arbitrary: fc.record({
        edit: fc.nat(),
        change: fc.oneof(
          fc.record({ term: textArb }),
          fc.record({ definition: textArb }),
          fc.record({ category: fc.constantFrom<Category>('backend', 'devops') }),
        ),
      }),
    },
    { weight: 1, arbitrary: fc.record({ remove: fc.nat() }) },
  );
  // Broad words (full pages whose last term is in the name's levels or the definitions'), a
  // typo, a prefix and two words.
  const QUERIES = ['cache', 'cachx', 'shard', 'ca', 'queue cache'];

  test('random writes between the same first pages: each answers the reference', async () => {
    let round = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(termArb, { minLength: 5, maxLength: 20 }),
        fc.array(writeArb, { minLength: 1, maxLength: 10 }),
        fc.constantFrom(1, 3, 5),
        fc.option(fc.constantFrom<Category>('backend', 'devops')),
        async (glossary, writes, limit, category) => {
          round += 1;
          let next = round * 1000;
          type Entry = { id: number; term: string; definition: string; category: Category };
          const terms: Entry[] = glossary.map((term) => ({ ...term, id: next++, see_also: [] }));
          for (const app of apps) {
            for (const id of ids(await getJson(app.app, '/terms')))
              await app.app.inject({ method: 'DELETE', url: `/terms/${id}` });
            assert.equal((await postJson(app.app, '/terms/bulk', terms)).statusCode, 207);
          }
          const expectPages = async (after: string) => {
            for (const query of QUERIES) {
              const expected = reference(terms, query, category ?? undefined).slice(0, limit);
              const url = `/terms?q=${encodeURIComponent(query)}&limit=${limit}${category ? `&category=${category}` : ''}`;
              for (const [i, app] of apps.entries())
                assert.deepEqual(
                  ids(await getJson(app.app, url)),
                  expected,
                  `${stores[i]?.name}: ${url} after ${after}`,
                );
            }
          };
          await expectPages('the import');
          for (const write of writes) {
            const picked = (n: number) => terms[n % terms.length] as Entry;
            if ('create' in write) {
              const created = { ...write.create, id: next++, see_also: [] };
              for (const app of apps)
                assert.equal((await postJson(app.app, '/terms', created)).statusCode, 201);
              terms.push(created);
            } else if (terms.length === 0) {
              continue;
            } else if ('edit' in write) {
              const edited = picked(write.edit);
              for (const app of apps) {
                const url = `/terms/${edited.id}`;
                const payload: Partial<Entry> = write.change;
                assert.equal(
                  (await app.app.inject({ method: 'PATCH', url, payload })).statusCode,
                  200,
                );
              }
              Object.assign(edited, write.change);
            } else {
              const removed = picked(write.remove);
              for (const app of apps) {
                const url = `/terms/${removed.id}`;
                assert.equal((await app.app.inject({ method: 'DELETE', url })).statusCode, 204);
              }
              terms.splice(terms.indexOf(removed), 1);
            }
            await expectPages(JSON.stringify(write));
          }
        },
      ),
      { numRuns: Math.ceil(Number(process.env.HOSTILE_RUNS ?? 200) / 8) },
    );
  });
});
