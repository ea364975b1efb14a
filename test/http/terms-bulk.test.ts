import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sampleTerm, startApp, type TestApp } from '../helpers/app.ts';
import { backends } from '../helpers/backends.ts';
import { ENUM_MSG, faultsOf, getJson, postJson, postRaw } from '../helpers/http.ts';

type Result = { index: number; status: 'created' | 'error'; id?: number; detail?: string };

const created = (index: number, id: number): Result => ({ index, status: 'created', id });
const failed = (index: number, detail: string): Result => ({ index, status: 'error', detail });
const exists = (id: number) => `Term with ID ${id} already exists.`;
const duplicate = (id: number) => `Duplicate ID ${id} in batch.`;

for (const backend of backends()) {
  describe(`POST /terms/bulk (${backend.name})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp(backend);
    });
    after(() => t.close());

    const bulk = async (items: unknown[]): Promise<Result[]> => {
      const response = await postJson(t.app, '/terms/bulk', items);
      assert.equal(response.statusCode, 207, response.body);
      assert.match(String(response.headers['content-type']), /^application\/json/);
      return response.json();
    };

    test('creates every valid item and answers 207 with one result per item, by index', async () => {
      const items = [
        sampleTerm(1),
        sampleTerm(2, { see_also: [1] }),
        sampleTerm(-3),
        sampleTerm(0),
      ];
      const response = await postJson(t.app, '/terms/bulk', items);
      assert.equal(response.statusCode, 207);
      assert.equal(
        response.body,
        '[{"index":0,"status":"created","id":1},{"index":1,"status":"created","id":2},' +
          '{"index":2,"status":"created","id":-3},{"index":3,"status":"created","id":0}]',
      );
      for (const item of items) assert.deepEqual(await getJson(t.app, `/terms/${item.id}`), item);
    });

    test("reports a validation failure as the item's messages, field path first", async () => {
      const results = await bulk([
        sampleTerm(10, { category: 'databases' }),
        sampleTerm(11),
        sampleTerm(12, { see_also: [1, 2, 3, 'x'], term: '' }),
        { id: 13 },
        sampleTerm(14, { id: '14', definition: 'd'.repeat(10_001) }),
      ]);
      assert.deepEqual(results, [
        failed(0, `category: ${ENUM_MSG}`),
        created(1, 11),
        failed(
          2,
          'term: ensure this value has at least 1 characters; see_also.3: value is not a valid integer',
        ),
        failed(3, 'term: field required; definition: field required; category: field required'),
        failed(
          4,
          'id: value is not a valid integer; definition: ensure this value has at most 10000 characters',
        ),
      ]);
    });

    test('reports a list limit, a lone surrogate and a non-list see_also in the same words', async () => {
      const results = await bulk([
        sampleTerm(20, { see_also: Array.from({ length: 101 }, (_, i) => i) }),
        sampleTerm(21, { term: 'a\ud800' }),
        sampleTerm(22, { see_also: 'x' }),
        sampleTerm(23, { see_also: null }),
      ]);
      assert.deepEqual(results, [
        failed(0, 'see_also: ensure this value has at most 100 items'),
        failed(1, 'term: string is not well-formed Unicode (it holds a lone surrogate)'),
        failed(2, 'see_also: value is not a valid list'),
        created(3, 23),
      ]);
      assert.deepEqual(await getJson(t.app, '/terms/23'), sampleTerm(23));
    });

    test('answers a non-object item with "value is not a valid dict"', async () => {
      const results = await bulk([null, 5, 'term', [sampleTerm(30)], true, sampleTerm(30)]);
      assert.deepEqual(results, [
        failed(0, 'value is not a valid dict'),
        failed(1, 'value is not a valid dict'),
        failed(2, 'value is not a valid dict'),
        failed(3, 'value is not a valid dict'),
        failed(4, 'value is not a valid dict'),
        created(5, 30),
      ]);
    });

    test('rejects an id already stored, whether created singly or in bulk', async () => {
      await postJson(t.app, '/terms', sampleTerm(40, { term: 'Original' }));
      const results = await bulk([sampleTerm(40), sampleTerm(1), sampleTerm(41)]);
      assert.deepEqual(results, [failed(0, exists(40)), failed(1, exists(1)), created(2, 41)]);
      assert.equal(((await getJson(t.app, '/terms/40')) as { term: string }).term, 'Original');
    });

    test('creates the first valid occurrence of an id and rejects the later ones as duplicates', async () => {
      const results = await bulk([
        sampleTerm(50, { term: 'first' }),
        sampleTerm(51),
        sampleTerm(50, { term: 'second' }),
        sampleTerm(50, { term: 'third' }),
      ]);
      assert.deepEqual(results, [
        created(0, 50),
        created(1, 51),
        failed(2, duplicate(50)),
        failed(3, duplicate(50)),
      ]);
      assert.equal(((await getJson(t.app, '/terms/50')) as { term: string }).term, 'first');
    });

    test('an invalid item does not reserve its id', async () => {
      const results = await bulk([
        sampleTerm(60, { category: 'x' }),
        sampleTerm(60, { term: 'valid' }),
        sampleTerm(60, { term: 'late' }),
      ]);
      assert.deepEqual(results, [
        failed(0, `category: ${ENUM_MSG}`),
        created(1, 60),
        failed(2, duplicate(60)),
      ]);
      assert.equal(((await getJson(t.app, '/terms/60')) as { term: string }).term, 'valid');
    });

    test('an id already stored and repeated in the batch is "already exists" every time', async () => {
      await postJson(t.app, '/terms', sampleTerm(70));
      const results = await bulk([sampleTerm(70), sampleTerm(71), sampleTerm(70), sampleTerm(70)]);
      assert.deepEqual(results, [
        failed(0, exists(70)),
        created(1, 71),
        failed(2, exists(70)),
        failed(3, exists(70)),
      ]);
    });

    test('validation comes before the "already exists" check', async () => {
      const results = await bulk([sampleTerm(1, { category: 'x' })]);
      assert.deepEqual(results, [failed(0, `category: ${ENUM_MSG}`)]);
    });

    test('answers 207 even when every item is rejected, and stores nothing', async () => {
      const before = await getJson(t.app, '/terms');
      const results = await bulk([sampleTerm(1), null, sampleTerm(80, { term: ' ' })]);
      assert.deepEqual(results, [
        failed(0, exists(1)),
        failed(1, 'value is not a valid dict'),
        failed(2, 'term: ensure this value has at least 1 characters'),
      ]);
      assert.deepEqual(await getJson(t.app, '/terms'), before);
    });

    test('ignores unknown fields and __proto__ keys of items', async () => {
      const response = await postRaw(
        t.app,
        '/terms/bulk',
        '[{"__proto__":{"id":1},"id":90,"term":"t","definition":"d","category":"devops","x":1}]',
      );
      assert.deepEqual(response.json(), [created(0, 90)]);
      assert.equal(
        (await t.app.inject({ method: 'GET', url: '/terms/90' })).body,
        '{"id":90,"term":"t","definition":"d","category":"devops","see_also":[]}',
      );
    });

    test('POST /terms may still create a duplicate of an id the bulk path created', async () => {
      await bulk([sampleTerm(95)]);
      assert.equal((await postJson(t.app, '/terms', sampleTerm(95))).statusCode, 201);
    });

    test('concurrent batches with the same new ids create each id exactly once', async () => {
      const ids = Array.from({ length: 40 }, (_, i) => 1000 + i);
      const responses = await Promise.all(
        Array.from({ length: 8 }, (_, k) =>
          postJson(
            t.app,
            '/terms/bulk',
            ids.map((id) => sampleTerm(id, { term: `batch ${k}` })),
          ),
        ),
      );
      const createdIds = responses.flatMap((response) =>
        (response.json() as Result[]).filter((r) => r.status === 'created').map((r) => r.id),
      );
      assert.deepEqual(
        createdIds.sort((a, b) => (a ?? 0) - (b ?? 0)),
        ids,
      );
      for (const response of responses) {
        for (const result of response.json() as Result[]) {
          if (result.status === 'error') assert.equal(result.detail, exists(1000 + result.index));
        }
      }
      const stored = (await getJson(t.app, '/terms')) as { id: number }[];
      assert.equal(stored.filter((term) => term.id >= 1000 && term.id < 1040).length, 40);
    });
  });

  describe(`POST /terms/bulk request errors (${backend.name})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp(backend);
    });
    after(async () => {
      // None of the refused requests stored anything.
      assert.deepEqual(await getJson(t.app, '/terms'), []);
      await t.close();
    });

    test("answers an empty array with 400 and the contract's sentence", async () => {
      const response = await postJson(t.app, '/terms/bulk', []);
      assert.equal(response.statusCode, 400);
      assert.deepEqual(response.json(), { detail: 'Request body must contain at least one term.' });
    });

    test('answers a body that is not an array with 422 type_error.list at ["body"]', async () => {
      for (const body of [sampleTerm(1), 'terms', 5, true, {}]) {
        const response = await postJson(t.app, '/terms/bulk', body);
        assert.deepEqual(faultsOf(response), [
          { loc: ['body'], msg: 'value is not a valid list', type: 'type_error.list', input: body },
        ]);
      }
    });

    test('answers a missing body and malformed JSON with 422', async () => {
      const missing = await t.app.inject({ method: 'POST', url: '/terms/bulk' });
      assert.deepEqual(faultsOf(missing), [
        { loc: ['body'], msg: 'field required', type: 'value_error.missing' },
      ]);
      const malformed = await postRaw(t.app, '/terms/bulk', '[{"id":1},');
      assert.deepEqual(faultsOf(malformed), [
        {
          loc: ['body', 10],
          msg: 'JSON decode error: Unexpected end of JSON input',
          type: 'value_error.jsondecode',
        },
      ]);
    });

    test('answers a batch over 10,000 items with 413 and stores none of it', async () => {
      const batch = Array.from({ length: 10_001 }, (_, i) => sampleTerm(i));
      const response = await postJson(t.app, '/terms/bulk', batch);
      assert.equal(response.statusCode, 413);
      assert.deepEqual(response.json(), { detail: 'A bulk request may hold at most 10000 terms.' });
    });

    test('answers a body over 16 MiB with 413 and stores none of it', async () => {
      const definition = 'd'.repeat(9_000);
      const batch = Array.from({ length: 2_000 }, (_, i) => sampleTerm(i, { definition }));
      const body = JSON.stringify(batch);
      assert.ok(Buffer.byteLength(body) > 16 * 1024 * 1024);
      const response = await postRaw(t.app, '/terms/bulk', body);
      assert.equal(response.statusCode, 413);
      assert.deepEqual(response.json(), {
        detail: `Request body is larger than the limit of ${16 * 1024 * 1024} bytes.`,
      });
    });
  });

  describe(`POST /terms/bulk at the limit (${backend.name})`, () => {
    test('accepts a batch of exactly 10,000 items and keeps their request order', async () => {
      const t = await startApp(backend);
      try {
        const batch = Array.from({ length: 10_000 }, (_, i) => sampleTerm(10_000 - i));
        const response = await postJson(t.app, '/terms/bulk', batch);
        assert.equal(response.statusCode, 207);
        const results = response.json() as Result[];
        assert.equal(results.length, 10_000);
        assert.ok(results.every((r, i) => r.status === 'created' && r.index === i));
        assert.deepEqual(await getJson(t.app, '/terms'), batch);
      } finally {
        await t.close();
      }
    });
  });

  describe(`POST /terms/bulk?dry_run=true (${backend.name})`, () => {
    test('answers the results the import would give and stores nothing', async () => {
      const t = await startApp(backend);
      try {
        await postJson(t.app, '/terms/bulk', [sampleTerm(1)]);
        const batch = [
          sampleTerm(2),
          sampleTerm(1),
          sampleTerm(3, { category: 'web' }),
          sampleTerm(2),
        ];
        const revision = await t.store.revision();
        const dry = await postJson(t.app, '/terms/bulk?dry_run=true', batch);
        assert.equal(dry.statusCode, 207);
        assert.equal(await t.store.revision(), revision);
        assert.deepEqual(await getJson(t.app, '/terms'), [sampleTerm(1)]);
        const real = await postJson(t.app, '/terms/bulk?dry_run=false', batch);
        assert.deepEqual(dry.json(), real.json());
        const bad = await postJson(t.app, '/terms/bulk?dry_run=yes', batch);
        assert.equal(bad.statusCode, 422);
        assert.deepEqual(
          (bad.json() as { detail: { loc: unknown[] }[] }).detail.map((fault) => fault.loc),
          [['query', 'dry_run']],
        );
      } finally {
        await t.close();
      }
    });
  });
}
