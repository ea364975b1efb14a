import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { errors } from '../../src/http/errors.ts';
import { sampleTerm, startApp, type TestApp } from '../helpers/app.ts';
import { backends } from '../helpers/backends.ts';
import { ENUM_MSG, faultsOf, getJson, postJson } from '../helpers/http.ts';

type Listed = { id: number; term: string; category: string }[];

const ids = (terms: unknown) => (terms as Listed).map((term) => term.id);
const search = (text: string) => `/terms?search=${encodeURIComponent(text)}`;

for (const backend of backends()) {
  describe(`GET /terms ordering (${backend.name})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp(backend);
    });
    after(() => t.close());

    test('answers [] when no term exists', async () => {
      const response = await t.app.inject({ method: 'GET', url: '/terms' });
      assert.equal(response.statusCode, 200);
      assert.match(String(response.headers['content-type']), /^application\/json/);
      assert.equal(response.body, '[]');
    });

    test('lists in creation order (bulk items in request order), not by id', async () => {
      for (const id of [5, 3, 9]) await postJson(t.app, '/terms', sampleTerm(id));
      const bulk = await postJson(t.app, '/terms/bulk', [
        sampleTerm(8),
        sampleTerm(1),
        sampleTerm(7),
      ]);
      assert.equal(bulk.statusCode, 207);
      await postJson(t.app, '/terms', sampleTerm(2));
      await postJson(t.app, '/terms', sampleTerm(3, { term: 'Three again' }));
      const listed = await getJson(t.app, '/terms');
      assert.deepEqual(ids(listed), [5, 3, 9, 8, 1, 7, 2, 3]);
      assert.deepEqual((listed as Listed)[0], sampleTerm(5));
      for (const term of listed as Listed) {
        assert.deepEqual(Object.keys(term), ['id', 'term', 'definition', 'category', 'see_also']);
      }
      assert.equal((listed as Listed)[7]?.term, 'Three again');
    });

    test('lists every term of a list longer than one storage chunk, in order', async () => {
      const fresh = await startApp(backend);
      try {
        const batch = Array.from({ length: 1234 }, (_, i) =>
          sampleTerm(5000 - i, { category: i % 2 ? 'devops' : 'frontend' }),
        );
        const bulk = await postJson(fresh.app, '/terms/bulk', batch);
        assert.equal(bulk.statusCode, 207);
        const listed = await getJson(fresh.app, '/terms');
        assert.deepEqual(listed, batch);
        const devops = await getJson(fresh.app, '/terms?category=devops&search=term');
        assert.deepEqual(
          devops,
          batch.filter((term) => term.category === 'devops'),
        );
      } finally {
        await fresh.close();
      }
    });
  });

  describe(`GET /terms filters (${backend.name})`, () => {
    let t: TestApp;
    const terms = [
      sampleTerm(1, { term: 'Über-Build', category: 'devops', definition: 'nothing special' }),
      sampleTerm(2, { term: 'Straße', category: 'frontend' }),
      sampleTerm(3, { term: 'STRASSE', category: 'backend' }),
      sampleTerm(4, { term: '100% coverage', category: 'docs-as-code' }),
      sampleTerm(5, { term: 'snake_case', category: 'backend' }),
      sampleTerm(6, { term: 'glob *.ts', category: 'frontend' }),
      sampleTerm(7, { term: 'C:\\path', category: 'devops' }),
      sampleTerm(8, { term: 'array[0]', category: 'backend' }),
      sampleTerm(9, { term: 'abc', category: 'backend', definition: 'contains über and %' }),
      sampleTerm(10, { term: 'ΚΌΣΜΟΣ', category: 'frontend' }),
      sampleTerm(11, { term: 'Kubernetes', category: 'devops', definition: 'Straße' }),
    ];
    before(async () => {
      t = await startApp(backend);
      for (const term of terms)
        assert.equal((await postJson(t.app, '/terms', term)).statusCode, 201);
    });
    after(() => t.close());

    test('category returns only the terms of that category, in creation order', async () => {
      assert.deepEqual(ids(await getJson(t.app, '/terms?category=backend')), [3, 5, 8, 9]);
      assert.deepEqual(ids(await getJson(t.app, '/terms?category=devops')), [1, 7, 11]);
      assert.deepEqual(ids(await getJson(t.app, '/terms?category=docs-as-code')), [4]);
      assert.deepEqual(ids(await getJson(t.app, '/terms?category=frontend')), [2, 6, 10]);
    });

    test('search matches a substring of the term case-insensitively', async () => {
      assert.deepEqual(ids(await getJson(t.app, search('ubern'))), [11]);
      assert.deepEqual(ids(await getJson(t.app, search('KUBER'))), [11]);
      assert.deepEqual(ids(await getJson(t.app, search('Kubernetes'))), [11]);
      assert.deepEqual(ids(await getJson(t.app, search('kubernetes!'))), []);
    });

    test('search uses Unicode case folding: über finds Über, straße and STRASSE find each other', async () => {
      assert.deepEqual(ids(await getJson(t.app, search('über'))), [1]);
      assert.deepEqual(ids(await getJson(t.app, search('ÜBER-'))), [1]);
      assert.deepEqual(ids(await getJson(t.app, search('straße'))), [2, 3]);
      assert.deepEqual(ids(await getJson(t.app, search('STRASSE'))), [2, 3]);
      assert.deepEqual(ids(await getJson(t.app, search('ss'))), [2, 3]);
      assert.deepEqual(ids(await getJson(t.app, search('κόσμος'))), [10]);
      assert.deepEqual(ids(await getJson(t.app, search('όσ'))), [10]);
    });

    test('search looks at the term only, never at the definition', async () => {
      assert.deepEqual(ids(await getJson(t.app, search('special'))), []);
      assert.deepEqual(ids(await getJson(t.app, search('Definition'))), []);
      assert.deepEqual(ids(await getJson(t.app, search('über'))), [1]);
    });

    test('search takes %, _, *, ., \\ and brackets literally', async () => {
      assert.deepEqual(ids(await getJson(t.app, search('%'))), [4]);
      assert.deepEqual(ids(await getJson(t.app, search('_'))), [5]);
      assert.deepEqual(ids(await getJson(t.app, search('*'))), [6]);
      assert.deepEqual(ids(await getJson(t.app, search('*.ts'))), [6]);
      assert.deepEqual(ids(await getJson(t.app, search('.'))), [6]);
      assert.deepEqual(ids(await getJson(t.app, search('a.c'))), []);
      assert.deepEqual(ids(await getJson(t.app, search('\\'))), [7]);
      assert.deepEqual(ids(await getJson(t.app, search('[0]'))), [8]);
      assert.deepEqual(ids(await getJson(t.app, search('[abc]'))), []);
      assert.deepEqual(ids(await getJson(t.app, search('a%c'))), []);
      assert.deepEqual(ids(await getJson(t.app, search('snake%'))), []);
      assert.deepEqual(ids(await getJson(t.app, search('s_ake'))), []);
    });

    test('an empty search is no filter', async () => {
      assert.deepEqual(ids(await getJson(t.app, '/terms?search=')), ids(terms));
      assert.deepEqual(ids(await getJson(t.app, '/terms?search=&category=devops')), [1, 7, 11]);
    });

    test('category and search combined return only terms that satisfy both', async () => {
      assert.deepEqual(ids(await getJson(t.app, `${search('strasse')}&category=backend`)), [3]);
      assert.deepEqual(ids(await getJson(t.app, `${search('strasse')}&category=frontend`)), [2]);
      assert.deepEqual(ids(await getJson(t.app, `${search('strasse')}&category=devops`)), []);
    });

    test('a search of 200 characters is accepted and one of 201 is 422 at ["query","search"]', async () => {
      assert.deepEqual(await getJson(t.app, search('x'.repeat(200))), []);
      assert.deepEqual(await getJson(t.app, search('😀'.repeat(200))), []);
      const long = 'x'.repeat(201);
      const response = await t.app.inject({ method: 'GET', url: search(long) });
      assert.deepEqual(faultsOf(response), [
        {
          loc: ['query', 'search'],
          msg: 'ensure this value has at most 200 characters',
          type: 'value_error.any_str.max_length',
          input: long,
        },
      ]);
    });

    test('an invalid or empty category is 422 at ["query","category"]', async () => {
      for (const category of ['', 'databases', 'Backend', 'front end']) {
        const response = await t.app.inject({
          method: 'GET',
          url: `/terms?category=${encodeURIComponent(category)}`,
        });
        assert.deepEqual(faultsOf(response), [
          { loc: ['query', 'category'], msg: ENUM_MSG, type: 'type_error.enum', input: category },
        ]);
      }
    });

    test('reports a bad category and a too-long search together', async () => {
      const long = 's'.repeat(201);
      const response = await t.app.inject({
        method: 'GET',
        url: `/terms?category=nope&search=${long}`,
      });
      assert.deepEqual(
        faultsOf(response).map((f) => (f as { loc: unknown }).loc),
        [
          ['query', 'category'],
          ['query', 'search'],
        ],
      );
    });

    test('a query parameter given twice is 422 (a filter takes one value)', async () => {
      const response = await t.app.inject({
        method: 'GET',
        url: '/terms?category=backend&category=devops',
      });
      assert.deepEqual(faultsOf(response), [
        {
          loc: ['query', 'category'],
          msg: 'str type expected',
          type: 'type_error.str',
          input: ['backend', 'devops'],
        },
      ]);
    });

    test('unknown query parameters are ignored', async () => {
      assert.deepEqual(ids(await getJson(t.app, '/terms?page=2&__proto__=x')), ids(terms));
    });
  });

  describe(`percent-encoding in the path and in the query (${backend.name})`, () => {
    let t: TestApp;
    const terms = [
      sampleTerm(1, { term: '100% coverage' }),
      sampleTerm(2, { term: 'a b%ZZ one' }),
      sampleTerm(3, { term: 'a b%ZZ two' }),
      sampleTerm(4, { term: 'Café% menu' }),
      sampleTerm(5, { term: 'U+FFFD \uFFFD replaces bad bytes' }),
      sampleTerm(6, { term: 'a%20b%ZZ' }),
    ];
    before(async () => {
      t = await startApp(backend);
      assert.equal((await postJson(t.app, '/terms/bulk', terms)).statusCode, 207);
    });
    after(() => t.close());

    test('a broken percent-encoding in the path is 400: the path names no resource', async () => {
      for (const url of ['/terms/%ZZ', '/terms/%F0', '/terms/4%E2%82', '/terms/1%ZZ/history']) {
        const response = await t.app.inject({ method: 'GET', url });
        assert.deepEqual(
          [response.statusCode, response.json()],
          [400, { detail: errors.badUrl().detail }],
          url,
        );
      }
    });

    test('a query value is read as URLSearchParams reads it: a % without two hex digits stands for itself', async () => {
      const cases: [string, number[]][] = [
        ['%ZZ', [2, 3, 6]],
        ['100%', [1]],
        ['a%20b%ZZ', [2, 3]],
        ['a+b%ZZ+t', [3]],
        ['caf%C3%A9%', [4]],
        ['%F0', [5]],
        ['%E2%82', [5]],
      ];
      for (const [raw, expected] of cases) {
        assert.deepEqual(ids(await getJson(t.app, `/terms?search=${raw}`)), expected, raw);
        const read = new URLSearchParams(`search=${raw}`).get('search') ?? '';
        const found = terms.filter((term) => term.term.toLowerCase().includes(read.toLowerCase()));
        assert.deepEqual(ids(found), expected, `URLSearchParams reads ${raw} as ${read}`);
      }
      const category = await t.app.inject({ method: 'GET', url: '/terms?category=back%ZZ' });
      assert.deepEqual(faultsOf(category), [
        { loc: ['query', 'category'], msg: ENUM_MSG, type: 'type_error.enum', input: 'back%ZZ' },
      ]);
    });

    test("a page's next link keeps the filter the page was read with", async () => {
      const first = await t.app.inject({ method: 'GET', url: '/terms?search=a%20b%ZZ&limit=1' });
      assert.deepEqual(ids(first.json()), [2]);
      assert.equal(first.headers['x-total-count'], '2');
      const next = /<([^>]+)>; rel="next"/.exec(String(first.headers.link))?.[1];
      assert.ok(next, String(first.headers.link));
      const second = await t.app.inject({ method: 'GET', url: next });
      assert.deepEqual(ids(second.json()), [3]);
      assert.equal(second.headers['x-total-count'], '2');
    });
  });

  describe(`GET /terms/{id} (${backend.name})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp(backend);
      for (const term of [sampleTerm(42), sampleTerm(-7), sampleTerm(0)]) {
        await postJson(t.app, '/terms', term);
      }
    });
    after(() => t.close());

    test('returns the term, negative and zero ids included', async () => {
      assert.deepEqual(await getJson(t.app, '/terms/42'), sampleTerm(42));
      assert.deepEqual(await getJson(t.app, '/terms/-7'), sampleTerm(-7));
      assert.deepEqual(await getJson(t.app, '/terms/0'), sampleTerm(0));
    });

    test('answers 404 Term not found for an unknown id', async () => {
      for (const id of ['43', '-42', String(Number.MAX_SAFE_INTEGER)]) {
        const response = await t.app.inject({ method: 'GET', url: `/terms/${id}` });
        assert.equal(response.statusCode, 404);
        assert.deepEqual(response.json(), { detail: 'Term not found' });
      }
    });

    test('answers 422 at ["path","id"] for a non-integer or out-of-range id, echoing it as sent', async () => {
      const big = '9'.repeat(400);
      for (const id of [
        'abc',
        '1.5',
        '1e3',
        '0x10',
        '9007199254740992',
        '-9007199254740992',
        big,
      ]) {
        const response = await t.app.inject({ method: 'GET', url: `/terms/${id}` });
        assert.deepEqual(faultsOf(response), [
          {
            loc: ['path', 'id'],
            msg: 'value is not a valid integer',
            type: 'type_error.integer',
            input: id,
          },
        ]);
      }
    });

    test('answers a URL with a broken percent-encoding with 400 in the contract shape', async () => {
      const response = await t.app.inject({ method: 'GET', url: '/terms/%F0' });
      assert.equal(response.statusCode, 400);
      assert.deepEqual(Object.keys(response.json()), ['detail']);
      assert.equal(typeof response.json().detail, 'string');
    });

    test('accepts a trailing slash', async () => {
      assert.deepEqual(await getJson(t.app, '/terms/42/'), sampleTerm(42));
      assert.equal(ids(await getJson(t.app, '/terms/')).length, 3);
    });
  });

  describe(`HEAD (${backend.name})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp(backend);
      await postJson(t.app, '/terms', sampleTerm(1));
    });
    after(() => t.close());

    test('answers wherever GET does, with the same status and headers and no body', async () => {
      const urls = [
        '/terms',
        '/terms?category=backend&search=term',
        '/terms?category=bad',
        '/terms/1',
        '/terms/2',
        '/terms/abc',
        '/healthz',
        '/readyz',
        '/openapi.json',
        '/docs',
      ];
      for (const url of urls) {
        const get = await t.app.inject({ method: 'GET', url });
        const head = await t.app.inject({ method: 'HEAD', url });
        assert.equal(head.statusCode, get.statusCode, url);
        assert.equal(head.headers['content-type'], get.headers['content-type'], url);
        assert.equal(head.body, '', url);
      }
    });
  });
}
