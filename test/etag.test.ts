import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sampleTerm, startApp, type TestApp } from './helpers/app.ts';
import { backends } from './helpers/backends.ts';

for (const backend of backends()) {
  describe(`ETag and If-None-Match (${backend.name})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp(backend);
      for (const id of [1, 2, 3]) {
        const res = await t.app.inject({ method: 'POST', url: '/terms', payload: sampleTerm(id) });
        assert.equal(res.statusCode, 201);
      }
    });
    after(() => t.close());

    const get = (url: string, ifNoneMatch?: string, method: 'GET' | 'HEAD' = 'GET') =>
      t.app.inject({
        method,
        url,
        headers: ifNoneMatch === undefined ? {} : { 'if-none-match': ifNoneMatch },
      });

    for (const url of ['/terms', '/terms?category=backend&limit=2', '/terms/2']) {
      test(`GET ${url} answers 304 without a body to its own ETag`, async () => {
        const first = await get(url);
        assert.equal(first.statusCode, 200);
        const etag = first.headers.etag as string;
        assert.match(etag, /^(W\/)?"[^"]+"$/);
        const again = await get(url, etag);
        assert.equal(again.statusCode, 304);
        assert.equal(again.body, '');
        assert.equal(again.headers.etag, etag);
      });

      test(`GET ${url} answers 304 to * and to a list holding its tag, 200 to other tags`, async () => {
        const etag = (await get(url)).headers.etag as string;
        assert.equal((await get(url, '*')).statusCode, 304);
        assert.equal((await get(url, `"other", ${etag}, W/"more"`)).statusCode, 304);
        // Weak comparison: the tag with or without W/ matches.
        const flipped = etag.startsWith('W/') ? etag.slice(2) : `W/${etag}`;
        assert.equal((await get(url, flipped)).statusCode, 304);
        const miss = await get(url, '"other", W/"more"');
        assert.equal(miss.statusCode, 200);
        assert.equal(miss.headers.etag, etag);
      });

      test(`HEAD ${url} carries the same ETag and answers 304 too`, async () => {
        const etag = (await get(url)).headers.etag as string;
        const head = await get(url, undefined, 'HEAD');
        assert.equal(head.statusCode, 200);
        assert.equal(head.body, '');
        assert.equal(head.headers.etag, etag);
        assert.equal((await get(url, etag, 'HEAD')).statusCode, 304);
      });
    }

    test('different queries of the list have different tags', async () => {
      const tags = new Set<string>();
      for (const url of ['/terms', '/terms?sort=id', '/terms?limit=2', '/terms?search=term']) {
        tags.add((await get(url)).headers.etag as string);
      }
      assert.equal(tags.size, 4);
    });

    test('a list tag changes when a term is added, by POST /terms or by bulk import', async () => {
      const before = (await get('/terms?category=devops')).headers.etag as string;
      const created = await t.app.inject({ method: 'POST', url: '/terms', payload: sampleTerm(4) });
      assert.equal(created.statusCode, 201);
      const afterCreate = await get('/terms?category=devops', before);
      // Even a list the new term does not belong to: the tag follows the glossary.
      assert.equal(afterCreate.statusCode, 200);
      const middle = afterCreate.headers.etag as string;
      assert.notEqual(middle, before);
      const bulk = await t.app.inject({
        method: 'POST',
        url: '/terms/bulk',
        payload: [sampleTerm(5)],
      });
      assert.equal(bulk.statusCode, 207);
      const afterBulk = await get('/terms?category=devops', middle);
      assert.equal(afterBulk.statusCode, 200);
      assert.notEqual(afterBulk.headers.etag, middle);
    });

    test('a bulk import that creates nothing leaves the list tag as it was', async () => {
      const etag = (await get('/terms')).headers.etag as string;
      const bulk = await t.app.inject({
        method: 'POST',
        url: '/terms/bulk',
        payload: [sampleTerm(1)],
      });
      assert.equal(bulk.json()[0].status, 'error');
      assert.equal((await get('/terms', etag)).statusCode, 304);
    });

    test('a term tag differs between terms and stays for the same term', async () => {
      const one = (await get('/terms/1')).headers.etag;
      const two = (await get('/terms/2')).headers.etag;
      assert.notEqual(one, two);
      await t.app.inject({ method: 'POST', url: '/terms', payload: sampleTerm(6) });
      assert.equal((await get('/terms/1')).headers.etag, one);
    });

    test('an unknown id is 404 whatever If-None-Match says', async () => {
      const res = await get('/terms/999', '*');
      assert.equal(res.statusCode, 404);
      assert.deepEqual(res.json(), { detail: 'Term not found' });
    });

    test('CORS exposes ETag, Link and X-Total-Count to browsers', async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: '/terms?limit=1',
        headers: { origin: 'https://example.org' },
      });
      const exposed = String(res.headers['access-control-expose-headers']).toLowerCase();
      for (const header of ['etag', 'link', 'x-total-count']) {
        assert.ok(exposed.split(/,\s*/).includes(header), header);
      }
    });
  });
}
