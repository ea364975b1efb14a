import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sampleTerm, startApp, type TestApp } from '../helpers/app.ts';
import { backends } from '../helpers/backends.ts';

/** GET /terms?links_to=ID: the terms that link to an id, a filter like the others. */

const ids = (body: { id: number }[]) => body.map((term) => term.id);

for (const backend of backends()) {
  describe(`GET /terms?links_to (${backend.name})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp(backend);
      // Terms 2..13 link to 1; the odd ones are devops; 3 and 5 also link to 2.
      const items = [
        sampleTerm(1, { term: 'Cache' }),
        ...Array.from({ length: 12 }, (_, i) =>
          sampleTerm(i + 2, {
            term: i % 3 === 0 ? `Cache layer ${i + 2}` : `Queue ${i + 2}`,
            category: (i + 2) % 2 === 1 ? 'devops' : 'backend',
            see_also: (i + 2) % 2 === 1 && i < 4 ? [1, 2] : [1],
          }),
        ),
        sampleTerm(20, { see_also: [404] }),
      ];
      const res = await t.app.inject({ method: 'POST', url: '/terms/bulk', payload: items });
      assert.equal(res.statusCode, 207);
    });
    after(() => t.close());

    test('lists the terms whose see_also holds the id, in creation order', async () => {
      const res = await t.app.inject('/terms?links_to=2');
      assert.equal(res.statusCode, 200);
      assert.deepEqual(ids(res.json()), [3, 5]);
      const all = await t.app.inject('/terms?links_to=1');
      assert.deepEqual(ids(all.json()), [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
      const missing = await t.app.inject('/terms?links_to=404');
      assert.deepEqual(ids(missing.json()), [20], 'the id need not name a term');
      const none = await t.app.inject('/terms?links_to=20');
      assert.deepEqual(none.json(), []);
    });

    test('pages with X-Total-Count and Link, keeping links_to in the links', async () => {
      const res = await t.app.inject('/terms?links_to=1&limit=5&offset=5');
      assert.equal(res.statusCode, 200);
      assert.deepEqual(ids(res.json()), [7, 8, 9, 10, 11]);
      assert.equal(res.headers['x-total-count'], '12');
      assert.equal(
        res.headers.link,
        '</terms?links_to=1&limit=5&offset=10>; rel="next", </terms?links_to=1&limit=5&offset=0>; rel="prev"',
      );
    });

    test('combines with category, search, q and sort', async () => {
      const devops = await t.app.inject('/terms?links_to=1&category=devops&limit=3');
      assert.deepEqual(ids(devops.json()), [3, 5, 7]);
      assert.equal(devops.headers['x-total-count'], '6');
      const search = await t.app.inject('/terms?links_to=1&search=layer');
      assert.deepEqual(ids(search.json()), [2, 5, 8, 11]);
      const q = await t.app.inject('/terms?links_to=2&q=cache');
      assert.deepEqual(ids(q.json()), [5]);
      const ranked = await t.app.inject('/terms?links_to=1&q=cache&limit=2');
      assert.deepEqual(ids(ranked.json()), [2, 5]);
      assert.equal(ranked.headers['x-total-count'], '4');
      const sorted = await t.app.inject('/terms?links_to=2&sort=-id');
      assert.deepEqual(ids(sorted.json()), [5, 3]);
    });

    test('HEAD answers the headers of GET', async () => {
      const get = await t.app.inject('/terms?links_to=1&limit=5');
      const head = await t.app.inject({ method: 'HEAD', url: '/terms?links_to=1&limit=5' });
      assert.equal(head.statusCode, 200);
      assert.equal(head.body, '');
      for (const name of ['etag', 'x-total-count', 'link']) {
        assert.equal(head.headers[name], get.headers[name], name);
      }
    });

    test('the ETag is the query: another links_to is another tag', async () => {
      const one = await t.app.inject('/terms?links_to=1');
      const two = await t.app.inject('/terms?links_to=2');
      assert.notEqual(one.headers.etag, two.headers.etag);
      const again = await t.app.inject({
        url: '/terms?links_to=1',
        headers: { 'if-none-match': String(one.headers.etag) },
      });
      assert.equal(again.statusCode, 304);
    });

    test('follows an edit at once', async () => {
      const patch = await t.app.inject({
        method: 'PATCH',
        url: '/terms/4',
        payload: { see_also: [2] },
      });
      assert.equal(patch.statusCode, 200);
      assert.deepEqual(ids((await t.app.inject('/terms?links_to=2')).json()), [3, 4, 5]);
      const del = await t.app.inject({ method: 'DELETE', url: '/terms/3' });
      assert.equal(del.statusCode, 204);
      const after = await t.app.inject('/terms?links_to=2&limit=10');
      assert.deepEqual(ids(after.json()), [4, 5]);
      assert.equal(after.headers['x-total-count'], '2');
    });

    for (const [value, type, msg] of [
      ['x', 'type_error.integer', 'value is not a valid integer'],
      ['1.5', 'type_error.integer', 'value is not a valid integer'],
      ['', 'type_error.integer', 'value is not a valid integer'],
      // Beyond ±(2^53 − 1) a number is not exact: not an integer, as for `offset` and ids.
      ['9007199254740992', 'type_error.integer', 'value is not a valid integer'],
      ['-9007199254740992', 'type_error.integer', 'value is not a valid integer'],
    ] as const) {
      test(`links_to=${value} is a 422 at ["query","links_to"]`, async () => {
        const res = await t.app.inject(`/terms?links_to=${value}`);
        assert.equal(res.statusCode, 422);
        assert.deepEqual(res.json(), {
          detail: [{ loc: ['query', 'links_to'], msg, type, input: value }],
        });
      });
    }

    test('the largest and smallest ids are accepted', async () => {
      for (const value of ['9007199254740991', '-9007199254740991', '0']) {
        const res = await t.app.inject(`/terms?links_to=${value}`);
        assert.equal(res.statusCode, 200, value);
        assert.deepEqual(res.json(), []);
      }
    });

    test('the OpenAPI document describes links_to', async () => {
      const doc = (await t.app.inject('/openapi.json')).json();
      const param = doc.paths['/terms'].get.parameters.find(
        (p: { name: string }) => p.name === 'links_to',
      );
      assert.equal(param.in, 'query');
      assert.equal(param.schema.type, 'integer');
      assert.equal(param.schema.maximum, Number.MAX_SAFE_INTEGER);
      assert.match(param.description ?? param.schema.description, /see_also/);
    });
  });
}
