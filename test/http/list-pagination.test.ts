import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { sampleTerm, startApp, type TestApp } from '../helpers/app.ts';
import { backends } from '../helpers/backends.ts';

/** The `Link` header as {rel: target}. */
function links(header: unknown): Record<string, string> {
  const found: Record<string, string> = {};
  for (const [, target, rel] of String(header ?? '').matchAll(/<([^>]*)>;\s*rel="(\w+)"/g)) {
    found[rel as string] = target as string;
  }
  return found;
}

const ids = (body: { id: number }[]) => body.map((term) => term.id);

for (const backend of backends()) {
  describe(`GET /terms with limit and offset (${backend.name})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp(backend);
      // 25 terms, ids 1..25, categories alternating backend/devops.
      const items = Array.from({ length: 25 }, (_, i) =>
        sampleTerm(i + 1, { category: i % 2 === 0 ? 'backend' : 'devops' }),
      );
      const res = await t.app.inject({ method: 'POST', url: '/terms/bulk', payload: items });
      assert.equal(res.statusCode, 207);
    });
    after(() => t.close());

    test('limit returns the first page with X-Total-Count and a next link', async () => {
      const res = await t.app.inject('/terms?limit=10');
      assert.equal(res.statusCode, 200);
      assert.deepEqual(ids(res.json()), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      assert.equal(res.headers['x-total-count'], '25');
      assert.deepEqual(links(res.headers.link), { next: '/terms?limit=10&offset=10' });
    });

    test('a middle page links to next and prev; the last page only to prev', async () => {
      const middle = await t.app.inject('/terms?limit=10&offset=10');
      assert.deepEqual(ids(middle.json()), [11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
      assert.deepEqual(links(middle.headers.link), {
        next: '/terms?limit=10&offset=20',
        prev: '/terms?limit=10&offset=0',
      });
      const last = await t.app.inject('/terms?limit=10&offset=20');
      assert.deepEqual(ids(last.json()), [21, 22, 23, 24, 25]);
      assert.deepEqual(links(last.headers.link), { prev: '/terms?limit=10&offset=10' });
    });

    test('following next links visits every term once, in order', async () => {
      const seen: number[] = [];
      let url: string | undefined = '/terms?limit=7';
      while (url) {
        const res: LightMyRequestResponse = await t.app.inject(url);
        assert.equal(res.statusCode, 200);
        seen.push(...ids(res.json()));
        url = links(res.headers.link).next;
      }
      assert.deepEqual(
        seen,
        Array.from({ length: 25 }, (_, i) => i + 1),
      );
    });

    test('links keep the filters and the sort; the total counts the filtered terms', async () => {
      const res = await t.app.inject('/terms?category=devops&sort=-id&limit=3&offset=3');
      assert.deepEqual(ids(res.json()), [18, 16, 14]);
      assert.equal(res.headers['x-total-count'], '12');
      assert.deepEqual(links(res.headers.link), {
        next: '/terms?category=devops&sort=-id&limit=3&offset=6',
        prev: '/terms?category=devops&sort=-id&limit=3&offset=0',
      });
    });

    test('search with limit counts and pages the matches only', async () => {
      // "Term 1", "Term 10".."Term 19": 11 matches of "term 1".
      const res = await t.app.inject('/terms?search=TERM%201&limit=5&offset=5');
      assert.deepEqual(ids(res.json()), [14, 15, 16, 17, 18]);
      assert.equal(res.headers['x-total-count'], '11');
    });

    test('an offset past the end is an empty page that links back', async () => {
      const res = await t.app.inject('/terms?limit=10&offset=100');
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), []);
      assert.equal(res.headers['x-total-count'], '25');
      assert.deepEqual(links(res.headers.link), { prev: '/terms?limit=10&offset=15' });
    });

    test('offset without limit returns every term after it, without page headers', async () => {
      const res = await t.app.inject('/terms?offset=22');
      assert.deepEqual(ids(res.json()), [23, 24, 25]);
      assert.equal(res.headers['x-total-count'], undefined);
      assert.equal(res.headers.link, undefined);
    });

    test('without limit the whole list comes back and no page headers', async () => {
      const res = await t.app.inject('/terms');
      assert.equal(res.json().length, 25);
      assert.equal(res.headers['x-total-count'], undefined);
      assert.equal(res.headers.link, undefined);
    });

    test('limit=1000 is accepted', async () => {
      const res = await t.app.inject('/terms?limit=1000');
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().length, 25);
      assert.equal(res.headers.link, undefined);
    });

    for (const [query, name, type, msg, input] of [
      [
        'limit=0',
        'limit',
        'value_error.number.not_ge',
        'ensure this value is greater than or equal to 1',
        '0',
      ],
      [
        'limit=1001',
        'limit',
        'value_error.number.not_le',
        'ensure this value is less than or equal to 1000',
        '1001',
      ],
      ['limit=ten', 'limit', 'type_error.integer', 'value is not a valid integer', 'ten'],
      ['limit=1.5', 'limit', 'type_error.integer', 'value is not a valid integer', '1.5'],
      ['limit=', 'limit', 'type_error.integer', 'value is not a valid integer', ''],
      [
        'offset=-1',
        'offset',
        'value_error.number.not_ge',
        'ensure this value is greater than or equal to 0',
        '-1',
      ],
      [
        'offset=9007199254740992',
        'offset',
        'type_error.integer',
        'value is not a valid integer',
        '9007199254740992',
      ],
      ['offset=x', 'offset', 'type_error.integer', 'value is not a valid integer', 'x'],
    ] as const) {
      test(`GET /terms?${query} is a 422 at ["query","${name}"]`, async () => {
        const res = await t.app.inject(`/terms?${query}`);
        assert.equal(res.statusCode, 422);
        assert.deepEqual(res.json(), { detail: [{ loc: ['query', name], msg, type, input }] });
      });
    }

    test('every bad query parameter is reported at once', async () => {
      const res = await t.app.inject('/terms?limit=0&offset=-5&sort=name&category=x');
      assert.equal(res.statusCode, 422);
      const locs = res.json().detail.map((fault: { loc: string[] }) => fault.loc[1]);
      assert.deepEqual(locs.sort(), ['category', 'limit', 'offset', 'sort']);
    });

    test('the OpenAPI document describes limit, offset, sort and the page headers', async () => {
      const doc = (await t.app.inject('/openapi.json')).json();
      const list = doc.paths['/terms'].get;
      const params = Object.fromEntries(
        list.parameters.map((p: { name: string; schema: unknown }) => [p.name, p.schema]),
      );
      assert.deepEqual(
        { min: params.limit.minimum, max: params.limit.maximum, type: params.limit.type },
        { min: 1, max: 1000, type: 'integer' },
      );
      assert.equal(params.offset.minimum, 0);
      assert.deepEqual(params.sort.enum, ['term', '-term', 'id', '-id']);
      assert.deepEqual(Object.keys(list.responses[200].headers).sort(), [
        'etag',
        'link',
        'x-total-count',
      ]);
    });
  });
}
