import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { ifMatch, noneMatch, parseEntityTags } from '../../src/http/etag.ts';
import { sampleTerm, startApp, type TestApp } from '../helpers/app.ts';
import { backends } from '../helpers/backends.ts';

/** Values of If-Match and If-None-Match that are neither `*` nor a list of entity tags. */
const MALFORMED = [
  'w/"tag"',
  'garbage"tag"garbage',
  '"a""b"',
  '"a" "b"',
  'tag',
  '"unclosed',
  'W/ "tag"',
  'W/tag',
  '"a" ; "b"',
  '*, "a"',
  '**',
  '"with"quote"',
  '"with space"',
  '"tab\there"',
  '"a"\n',
  '',
  ' , ,',
];

describe('parseEntityTags (RFC 9110 §8.8.3, §13.1.1)', () => {
  test('reads *, one tag, or a list with optional whitespace around commas', () => {
    assert.equal(parseEntityTags('*'), '*');
    assert.equal(parseEntityTags(' * '), '*');
    assert.deepEqual(parseEntityTags('"x"'), [{ weak: false, opaque: '"x"' }]);
    assert.deepEqual(parseEntityTags('W/"x"'), [{ weak: true, opaque: '"x"' }]);
    assert.deepEqual(parseEntityTags('""'), [{ weak: false, opaque: '""' }]);
    assert.deepEqual(parseEntityTags('"a",W/"b" ,\t"c"'), [
      { weak: false, opaque: '"a"' },
      { weak: true, opaque: '"b"' },
      { weak: false, opaque: '"c"' },
    ]);
    // A comma is an etagc: it may stand inside a tag.
    assert.deepEqual(parseEntityTags('"a,b", "c"'), [
      { weak: false, opaque: '"a,b"' },
      { weak: false, opaque: '"c"' },
    ]);
    // Empty list elements are ignored (RFC 9110 §5.6.1.2).
    assert.deepEqual(parseEntityTags(', "a" ,, "b",'), [
      { weak: false, opaque: '"a"' },
      { weak: false, opaque: '"b"' },
    ]);
    // obs-text: bytes 0x80-0xFF, as Node gives them (latin1).
    assert.deepEqual(parseEntityTags('"caf\u00e9\u00ff"'), [
      { weak: false, opaque: '"caf\u00e9\u00ff"' },
    ]);
  });

  test('anything else is malformed (null)', () => {
    for (const value of MALFORMED) assert.equal(parseEntityTags(value), null, value);
    assert.equal(parseEntityTags('"\u0100"'), null, 'beyond a byte');
    assert.equal(parseEntityTags('"\u007f"'), null, 'DEL');
  });

  test('a list of well-formed tags parses back to those tags', () => {
    const etagc = fc.constantFrom(
      ...[
        0x21,
        ...Array.from({ length: 0x7e - 0x23 + 1 }, (_, i) => 0x23 + i),
        0x80,
        0xe9,
        0xff,
      ].map((code) => String.fromCharCode(code)),
    );
    const tag = fc.record({
      weak: fc.boolean(),
      opaque: fc.array(etagc, { maxLength: 12 }).map((chars) => `"${chars.join('')}"`),
    });
    const ows = fc.constantFrom('', ' ', '\t', ' \t ');
    fc.assert(
      fc.property(fc.array(fc.tuple(tag, ows, ows), { minLength: 1, maxLength: 5 }), (tags) => {
        const value = tags
          .map(([t, before, after]) => `${before}${t.weak ? 'W/' : ''}${t.opaque}${after}`)
          .join(',');
        assert.deepEqual(
          parseEntityTags(value),
          tags.map(([t]) => ({ weak: t.weak, opaque: t.opaque })),
        );
      }),
    );
  });

  test('If-Match: a malformed value matches nothing; If-None-Match: it is ignored', () => {
    for (const value of MALFORMED) {
      assert.equal(ifMatch(value, '"tag"'), false, value);
      assert.equal(noneMatch(value, '"tag"'), false, value);
      assert.equal(noneMatch(value, 'W/"tag"'), false, value);
    }
    assert.equal(ifMatch(' "other" , "tag"', '"tag"'), true);
    assert.equal(ifMatch('W/"tag"', '"tag"'), false);
    assert.equal(noneMatch('W/"tag"', '"tag"'), true);
    assert.equal(noneMatch('"tag"', 'W/"tag"'), true);
  });
});

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

    test('a malformed If-None-Match is ignored: the full answer, 200', async () => {
      for (const url of ['/terms', '/terms/2']) {
        const etag = (await get(url)).headers.etag as string;
        for (const value of [`garbage${etag}garbage`, `${etag}${etag}`, `w/${etag}`, `${etag} x`]) {
          const response = await get(url, value);
          assert.equal(response.statusCode, 200, `${url} ${value}`);
          assert.equal(response.headers.etag, etag);
          assert.notEqual(response.body, '');
        }
      }
    });

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
