import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/http/app.ts';
import { StoreUnavailableError } from '../../src/store/errors.ts';
import { sampleTerm, startApp, TEST_CONFIG, type TestApp } from '../helpers/app.ts';
import { backends } from '../helpers/backends.ts';
import { enforceOpenApi } from '../helpers/openapi-check.ts';

/**
 * The warnings of writes: one `Warning: 299 - "..."` header each on the answers of POST, PUT,
 * PATCH, restore and DELETE, for what the API accepts but a writer should hear of; the body
 * exactly as without them. Every response is also checked against the OpenAPI document.
 */

/** The texts of the response's Warning headers, in order. */
function warnings(res: LightMyRequestResponse): string[] {
  const header = res.headers.warning;
  if (header === undefined) return [];
  return (Array.isArray(header) ? header : [header]).map((value) => {
    const match = /^299 - "(.*)"$/.exec(value);
    assert.ok(match, `a 299 warning: ${value}`);
    return match[1] as string;
  });
}

for (const backend of backends()) {
  describe(`warnings of writes (${backend.name})`, () => {
    let t: TestApp;
    const post = (payload: object) => t.app.inject({ method: 'POST', url: '/terms', payload });
    before(async () => {
      t = await startApp(backend);
      const res = await t.app.inject({
        method: 'POST',
        url: '/terms/bulk',
        payload: [
          sampleTerm(1, { term: 'Cache' }),
          sampleTerm(2, { term: 'Queue', aliases: ['Message queue'] }),
          sampleTerm(3, { term: 'Broker', see_also: [2] }),
        ],
      });
      assert.equal(res.statusCode, 207);
    });
    after(() => t.close());

    test('POST /terms: none when every link resolves and the name is new; body unchanged', async () => {
      const payload = sampleTerm(10, { term: 'Router', see_also: [1, 2] });
      const res = await post(payload);
      assert.equal(res.statusCode, 201);
      assert.equal(res.headers.warning, undefined);
      assert.deepEqual(res.json(), payload);
    });

    test('POST /terms: one warning per see_also id no term has, in order, each once', async () => {
      const payload = sampleTerm(11, { term: 'Proxy', see_also: [999, 1, 998, 999] });
      const res = await post(payload);
      assert.equal(res.statusCode, 201);
      assert.deepEqual(warnings(res), [
        'see_also: no term has id 999.',
        'see_also: no term has id 998.',
      ]);
      assert.deepEqual(res.json(), payload, 'the body is the term as stored, as without warnings');
      assert.equal(res.headers.location, '/terms/11');
      assert.deepEqual((await t.app.inject('/terms/11')).json(), payload, 'accepted');
    });

    test('POST /terms: a link to itself is no warning', async () => {
      const res = await post(sampleTerm(12, { term: 'Self', see_also: [12] }));
      assert.equal(res.statusCode, 201);
      assert.equal(res.headers.warning, undefined);
    });

    test('POST /terms: a name another term has, or one of its aliases, as names compare', async () => {
      const same = await post(sampleTerm(13, { term: '  CACHE ' }));
      assert.equal(same.statusCode, 201);
      assert.deepEqual(warnings(same), ['term: term 1 has the same name.']);
      const accents = await post(sampleTerm(14, { term: 'Cáche' }));
      assert.deepEqual(warnings(accents), ['term: terms 1, 13 have the same name.']);
      const alias = await post(sampleTerm(15, { term: 'message QUEUE', see_also: [404] }));
      assert.deepEqual(warnings(alias), [
        'see_also: no term has id 404.',
        'term: term 2 has the same name.',
      ]);
    });

    test('POST /terms: the same id again is not "another term"', async () => {
      const res = await post(sampleTerm(1, { term: 'Cache' }));
      assert.equal(res.statusCode, 201);
      assert.deepEqual(warnings(res), ['term: terms 13, 14 have the same name.']);
    });

    test('PUT and PATCH warn about the term as it now is', async () => {
      const put = await t.app.inject({
        method: 'PUT',
        url: '/terms/10',
        payload: sampleTerm(10, { term: 'Broker', see_also: [1, 777] }),
      });
      assert.equal(put.statusCode, 200);
      assert.deepEqual(warnings(put), [
        'see_also: no term has id 777.',
        'term: term 3 has the same name.',
      ]);
      assert.deepEqual(put.json(), sampleTerm(10, { term: 'Broker', see_also: [1, 777] }));
      const patch = await t.app.inject({
        method: 'PATCH',
        url: '/terms/10',
        payload: { term: 'Router', see_also: [1] },
      });
      assert.equal(patch.statusCode, 200);
      assert.equal(patch.headers.warning, undefined);
      assert.equal(patch.headers.etag !== undefined, true);
      const missing = await t.app.inject({
        method: 'PATCH',
        url: '/terms/10',
        payload: { see_also: [1, 555] },
      });
      assert.deepEqual(warnings(missing), ['see_also: no term has id 555.']);
      assert.deepEqual(missing.json(), sampleTerm(10, { term: 'Router', see_also: [1, 555] }));
    });

    test('DELETE warns when terms link to the deleted term, naming them', async () => {
      await post(sampleTerm(20, { term: 'Target' }));
      await post(sampleTerm(21, { term: 'Linker one', see_also: [20] }));
      await post(sampleTerm(22, { term: 'Linker two', see_also: [5, 20] }));
      const res = await t.app.inject({ method: 'DELETE', url: '/terms/20' });
      assert.equal(res.statusCode, 204);
      assert.equal(res.body, '');
      assert.deepEqual(warnings(res), ['terms 21, 22 link to this term.']);

      await post(sampleTerm(23, { term: 'Lonely' }));
      const none = await t.app.inject({ method: 'DELETE', url: '/terms/23' });
      assert.equal(none.statusCode, 204);
      assert.equal(none.headers.warning, undefined);
    });

    test('DELETE: one linking term is "term N links"; past ten, "and N more"', async () => {
      await post(sampleTerm(30, { term: 'Hub' }));
      await post(sampleTerm(31, { term: 'Spoke', see_also: [30] }));
      const one = await t.app.inject({ method: 'DELETE', url: '/terms/30' });
      assert.deepEqual(warnings(one), ['term 31 links to this term.']);

      await post(sampleTerm(40, { term: 'Popular' }));
      const items = Array.from({ length: 13 }, (_, i) =>
        sampleTerm(41 + i, { term: `Fan ${i}`, see_also: [40] }),
      );
      const bulk = await t.app.inject({ method: 'POST', url: '/terms/bulk', payload: items });
      assert.equal(bulk.statusCode, 207);
      const many = await t.app.inject({ method: 'DELETE', url: '/terms/40' });
      assert.deepEqual(warnings(many), [
        'terms 41, 42, 43, 44, 45, 46, 47, 48, 49, 50 and 3 more link to this term.',
      ]);
    });

    test('DELETE of one of two terms with an id: the links still lead to the other, no warning', async () => {
      await post(sampleTerm(60, { term: 'Twin' }));
      await post(sampleTerm(60, { term: 'Twin again' }));
      await post(sampleTerm(61, { term: 'Twin linker', see_also: [60] }));
      const first = await t.app.inject({ method: 'DELETE', url: '/terms/60' });
      assert.equal(first.headers.warning, undefined);
      const second = await t.app.inject({ method: 'DELETE', url: '/terms/60' });
      assert.deepEqual(warnings(second), ['term 61 links to this term.']);
    });

    test('restore warns about the state it brings back', async () => {
      await post(sampleTerm(70, { term: 'Restored', see_also: [888] }));
      const history = (await t.app.inject('/terms/70/history')).json();
      await t.app.inject({ method: 'PATCH', url: '/terms/70', payload: { see_also: [] } });
      const res = await t.app.inject({
        method: 'POST',
        url: '/terms/70/restore',
        payload: { revision: history[0].revision },
      });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(warnings(res), ['see_also: no term has id 888.']);
      assert.deepEqual(res.json(), sampleTerm(70, { term: 'Restored', see_also: [888] }));
    });

    test('POST /terms/bulk items get no warnings: the 207 results are as before', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/terms/bulk',
        payload: [sampleTerm(80, { term: 'Cache', see_also: [12345] })],
      });
      assert.equal(res.statusCode, 207);
      assert.equal(res.headers.warning, undefined);
      assert.deepEqual(res.json(), [{ index: 0, status: 'created', id: 80 }]);
    });

    test('a failed write carries no warning', async () => {
      const res = await t.app.inject({
        method: 'PUT',
        url: '/terms/9999',
        payload: sampleTerm(9999, { see_also: [12345] }),
      });
      assert.equal(res.statusCode, 404);
      assert.equal(res.headers.warning, undefined);
    });

    test('Warning is exposed to browsers (CORS)', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/terms',
        headers: { origin: 'https://anywhere.example' },
        payload: sampleTerm(90, { see_also: [54321] }),
      });
      assert.equal(res.statusCode, 201);
      assert.deepEqual(warnings(res), ['see_also: no term has id 54321.']);
      const exposed = String(res.headers['access-control-expose-headers']).split(/,\s*/);
      assert.ok(exposed.includes('warning'), exposed.join());
    });

    test('the OpenAPI document describes the Warning header on every answer that has it', async () => {
      const doc = (await t.app.inject('/openapi.json')).json();
      const header = (path: string, method: string, status: string) =>
        doc.paths[path][method].responses[status].headers?.warning;
      for (const [path, method, status] of [
        ['/terms', 'post', '201'],
        ['/terms/{id}', 'put', '200'],
        ['/terms/{id}', 'patch', '200'],
        ['/terms/{id}', 'delete', '204'],
        ['/terms/{id}/restore', 'post', '200'],
      ] as const) {
        const found = header(path, method, status);
        assert.ok(found, `${method} ${path} ${status}`);
        assert.equal(found.schema.type, 'string');
        assert.notEqual(found.required, true);
      }
      assert.equal(header('/terms/bulk', 'post', '207'), undefined);
    });

    test('when the warnings cannot be read, the write is still answered, without them', async () => {
      const store = await backend.open();
      const gone = async () => {
        throw new StoreUnavailableError('gone a moment after the write');
      };
      const app = await buildApp({
        config: TEST_CONFIG,
        store: { ...store, writeNotes: gone, danglingLinks: gone },
        logger: false,
      });
      try {
        await enforceOpenApi(app);
        const payload = sampleTerm(1, { see_also: [999] });
        const res = await app.inject({ method: 'POST', url: '/terms', payload });
        assert.equal(res.statusCode, 201);
        assert.equal(res.headers.warning, undefined);
        assert.deepEqual(res.json(), payload);
        assert.deepEqual(await store.get(1), payload);
        const del = await app.inject({ method: 'DELETE', url: '/terms/1' });
        assert.equal(del.statusCode, 204);
      } finally {
        await app.close();
        await store.close();
      }
    });
  });
}
