import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { CATEGORIES } from '../../src/glossary/term.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { backends } from '../helpers/backends.ts';

/**
 * Property tests with hostile input over every endpoint, through inject. Whatever arrives, the
 * answer is never a 5xx, the process never crashes, a stored term is always well formed, and a
 * valid term always comes back exactly as sent. The oracle below is written from the contract
 * (decisions.md), independently of the service's own validation code.
 */

const RUNS = Number(process.env.HOSTILE_RUNS ?? 200);
const FIELDS = ['id', 'term', 'definition', 'category', 'see_also'] as const;
const codePoints = (s: string) => [...s].length;
/** Blank is no visible character: whitespace, zero-width and format characters, controls, marks. */
const hasVisible = (value: string) =>
  value.replace(/[\s\p{Default_Ignorable_Code_Point}\p{Cc}\p{Cf}\p{Mn}\p{Mc}\p{Me}]/gu, '') !== '';
const isText = (value: unknown, max: number): value is string =>
  typeof value === 'string' &&
  value.isWellFormed() &&
  codePoints(value) >= 1 &&
  codePoints(value) <= max &&
  hasVisible(value);
const isId = (value: unknown) => typeof value === 'number' && Number.isSafeInteger(value);

/** Whether the contract says this parsed body is a valid term. */
function isValidTerm(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  const seeAlso = Object.hasOwn(v, 'see_also') ? v.see_also : undefined;
  return (
    isId(v.id) &&
    isText(v.term, 200) &&
    isText(v.definition, 10_000) &&
    (CATEGORIES as readonly unknown[]).includes(v.category) &&
    (seeAlso === undefined ||
      seeAlso === null ||
      (Array.isArray(seeAlso) && seeAlso.length <= 100 && seeAlso.every(isId)))
  );
}

/** The stored and returned form: exactly the five fields, in order, `see_also` defaulted. */
function canonical(v: Record<string, unknown>): string {
  const { id, term, definition, category } = v;
  return JSON.stringify({ id, term, definition, category, see_also: v.see_also ?? [] });
}

/** A valid term's fields, as arbitrary as the contract allows. */
const textArb = (max: number) =>
  fc
    .string({
      unit: fc.oneof(fc.constant('binary'), fc.constant('grapheme')) as never,
      minLength: 1,
      maxLength: max,
    })
    .filter((s) => isText(s, max));
const validFields = {
  id: fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
  term: textArb(60),
  definition: textArb(300),
  category: fc.constantFrom(...CATEGORIES),
  see_also: fc.option(fc.array(fc.maxSafeInteger(), { maxLength: 100 }), { nil: null }),
};

const validExample = {
  term: 'Example',
  definition: 'An example.',
  category: 'backend',
  see_also: [],
};

/** RFC 7396 §2 as written there: the oracle of PATCH. */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const result: Record<string, unknown> =
    typeof target === 'object' && target !== null && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) delete result[name];
    else
      Object.defineProperty(result, name, {
        value: mergePatch(result[name], value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return result;
}

/** Raw JSON text for a value of the wrong kind, including numbers JSON.parse cannot keep. */
const rawWrong = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.constantFrom(
    'null',
    'true',
    'false',
    '1.5',
    '"5"',
    '""',
    '"   "',
    '[]',
    '{}',
    '[1,"2"]',
    '1e999',
    '-1e999',
    '9007199254740992',
    '-9007199254740992',
    '123456789012345678901234567890',
    '-0',
    '5e-324',
    '"FRONTEND"',
    '"\\ud800"',
    `"${'x'.repeat(201)}"`,
    `[${Array(101).fill(1).join(',')}]`,
    '{"__proto__":{"polluted":1}}',
  ),
);
const rawValid = (field: (typeof FIELDS)[number]) =>
  (validFields[field] as fc.Arbitrary<unknown>).map((v) => JSON.stringify(v));

/** An object text with each field valid, wrong, missing or repeated, plus hostile extra keys. */
const termText = fc
  .tuple(
    ...FIELDS.map((field) =>
      fc.array(fc.tuple(fc.constant(field), fc.oneof(rawValid(field), rawValid(field), rawWrong)), {
        minLength: 0,
        maxLength: 2,
      }),
    ),
    fc.array(
      fc.tuple(
        fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'extra', 'ID'),
        rawWrong,
      ),
      { maxLength: 3 },
    ),
  )
  .chain((groups) => fc.shuffledSubarray(groups.flat(), { minLength: groups.flat().length }))
  .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`);

for (const backend of backends()) {
  describe(`hostile input (${backend.name})`, () => {
    let t: TestApp;
    let sent = 0;
    let serverErrors = 0;
    before(async () => {
      t = await startApp(backend);
    });
    after(async () => {
      await t.close();
    });

    async function send(options: InjectOptions): Promise<LightMyRequestResponse> {
      sent++;
      const response = await t.app.inject(options);
      if (response.statusCode >= 500) serverErrors++;
      assert.ok(
        response.statusCode < 500,
        `${options.method} ${String(options.url).slice(0, 80)} answered ${response.statusCode}: ${response.body.slice(0, 200)}`,
      );
      return response;
    }
    const postJson = (url: string, payload: string | Buffer) =>
      send({ method: 'POST', url, payload, headers: { 'content-type': 'application/json' } });

    test('any object text with valid, wrong, repeated or hostile fields: 201 exactly when the contract says valid', async () => {
      await fc.assert(
        fc.asyncProperty(termText, async (text) => {
          const parsed = JSON.parse(text) as unknown;
          const response = await postJson('/terms', text);
          if (isValidTerm(parsed)) {
            assert.equal(response.statusCode, 201, response.body);
            assert.equal(response.body, canonical(parsed));
          } else {
            assert.equal(response.statusCode, 422, response.body);
            assert.ok(Array.isArray(response.json().detail));
          }
          const bulk = await postJson('/terms/bulk', `[${text}]`);
          assert.equal(bulk.statusCode, 207);
          const [result] = bulk.json() as { index: number; status: string; detail?: string }[];
          assert.equal(result?.index, 0);
          if (!isValidTerm(parsed)) assert.equal(result?.status, 'error');
          else if (result?.status === 'error') assert.match(result.detail ?? '', /already exists/);
        }),
        { numRuns: RUNS },
      );
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
    });

    test('any JSON value as a body is answered without a 5xx, and only valid terms are created', async () => {
      await fc.assert(
        fc.asyncProperty(fc.jsonValue(), async (value) => {
          const text = JSON.stringify(value);
          const single = await postJson('/terms', text);
          assert.equal(single.statusCode, isValidTerm(value) ? 201 : 422);
          const bulk = await postJson('/terms/bulk', text);
          const expected = Array.isArray(value) ? (value.length === 0 ? 400 : 207) : 422;
          assert.equal(bulk.statusCode, expected, bulk.body);
        }),
        { numRuns: RUNS },
      );
    });

    test('any byte string as a body is answered 4xx or, when it is a valid term, 201', async () => {
      const utf8 = new TextDecoder('utf-8', { fatal: true });
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.uint8Array({ maxLength: 512 }),
            fc.string({ unit: 'binary' }).map((s) => Buffer.from(s)),
          ),
          async (bytes) => {
            let parsed: unknown;
            let parses = true;
            try {
              parsed = JSON.parse(utf8.decode(bytes));
            } catch {
              parses = false;
            }
            const response = await postJson('/terms', Buffer.from(bytes));
            if (!parses) {
              assert.equal(response.statusCode, 422);
              const type = bytes.length === 0 ? 'value_error.missing' : 'value_error.jsondecode';
              assert.equal(response.json().detail[0].type, type);
            } else assert.equal(response.statusCode, isValidTerm(parsed) ? 201 : 422);
            await postJson('/terms/bulk', Buffer.from(bytes));
          },
        ),
        { numRuns: RUNS },
      );
    });

    test('every field replaced by every wrong type is a 422 at that field', async () => {
      const wrong: unknown[] = [
        null,
        true,
        false,
        0.5,
        -1.5,
        '5',
        '',
        ' \t\n',
        'x'.repeat(10_001),
        [],
        [1],
        {},
        { a: 1 },
        2 ** 53,
        -(2 ** 53),
        1e308,
        -1e308,
        Number.MAX_VALUE,
        'FRONTEND',
        ['a'],
        [2 ** 60],
      ];
      const base = {
        id: 1,
        term: 'API',
        definition: 'Interface.',
        category: 'backend',
        see_also: [],
      };
      for (const field of FIELDS) {
        for (const value of wrong) {
          const body = { ...base, [field]: value };
          if (isValidTerm(body)) continue;
          const response = await postJson('/terms', JSON.stringify(body));
          assert.equal(response.statusCode, 422, `${field}=${JSON.stringify(value)}`);
          const faults = response.json().detail as { loc: unknown[] }[];
          assert.deepEqual(faults[0]?.loc.slice(0, 2), ['body', field]);
          const bulk = await postJson('/terms/bulk', JSON.stringify([body]));
          assert.match(bulk.json()[0].detail, new RegExp(`^${field}`));
        }
      }
    });

    test('deep nesting (100k levels), huge numbers and invalid UTF-8 are client errors', async () => {
      const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
      const deepObject = `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`;
      for (const url of ['/terms', '/terms/bulk']) {
        await postJson(url, deep);
        await postJson(url, deepObject);
        await postJson(
          url,
          `{"id":1,"term":"A","definition":"B","category":"backend","see_also":${deep}}`,
        );
        await postJson(url, `[${deepObject}]`);
        const badUtf8 = Buffer.concat([
          Buffer.from('{"id":1,"term":"'),
          Buffer.from([0xc3, 0x28, 0xff]),
          Buffer.from('","definition":"d","category":"backend"}'),
        ]);
        assert.equal((await postJson(url, badUtf8)).statusCode, 422);
        for (const number of [
          '1e400',
          '-1e400',
          '1'.repeat(5000),
          `-${'9'.repeat(400)}`,
          '0.0000001e-400',
        ]) {
          const response = await postJson(
            url,
            `{"id":${number},"term":"A","definition":"B","category":"backend"}`,
          );
          assert.ok([201, 207, 422].includes(response.statusCode), number);
        }
      }
    });

    test('odd content types are 415 or parsed as JSON, never a 5xx', async () => {
      const headerText = fc.string({
        unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
        maxLength: 80,
      });
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.constantFrom(
              'text/plain',
              'application/x-www-form-urlencoded',
              'multipart/form-data; boundary=x',
              'application/json; charset=latin1',
              'APPLICATION/JSON',
              'application/vnd.api+json',
              'application/json;;;',
              '*/*',
              'application/',
              '; charset=utf-8',
              'application/json\t',
            ),
            headerText,
          ),
          fc.constantFrom('/terms', '/terms/bulk'),
          async (contentType, url) => {
            const response = await send({
              method: 'POST',
              url,
              payload: '{"id":1}',
              headers: { 'content-type': contentType },
            });
            assert.ok(
              [415, 422, 400].includes(response.statusCode),
              `${contentType}: ${response.statusCode}`,
            );
          },
        ),
        { numRuns: RUNS },
      );
    });

    test('every method on every path, with arbitrary query strings and paths, never a 5xx', async () => {
      const pathText = fc.string({ unit: 'binary', maxLength: 100 }).map(encodeURIComponent);
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'),
          fc.oneof(
            fc.constantFrom(
              '/terms',
              '/terms/bulk',
              '/terms/1',
              '/healthz',
              '/readyz',
              '/openapi.json',
              '/docs',
              '/',
            ),
            pathText.map((p) => `/terms/${p}`),
            pathText.map((p) => `/${p}`),
          ),
          fc.array(
            fc.tuple(fc.constantFrom('category', 'search', 'id', '__proto__', 'x'), pathText),
            { maxLength: 4 },
          ),
          fc.option(fc.jsonValue({ maxDepth: 2 })),
          async (method, path, query, body) => {
            const qs = query.map(([k, v]) => `${k}=${v}`).join('&');
            await send({
              method: method as InjectOptions['method'],
              url: qs ? `${path}?${qs}` : path,
              ...(body !== null &&
                method !== 'GET' &&
                method !== 'HEAD' && {
                  payload: JSON.stringify(body),
                  headers: { 'content-type': 'application/json' },
                }),
            });
          },
        ),
        { numRuns: RUNS * 2 },
      );
      const huge = 'a'.repeat(100_000);
      await send({ method: 'GET', url: `/terms?search=${huge}` });
      await send({ method: 'GET', url: `/terms?category=${huge}&search=%ZZ&search=x` });
      await send({ method: 'GET', url: `/terms/${'9'.repeat(100_000)}` });
      await send({ method: 'GET', url: `/${huge}` });
      await send({ method: 'GET', url: `/terms?${'a=1&'.repeat(20_000)}` });
      // Every route of a term's path, each answer checked against the served document.
      const long = '9'.repeat(1000);
      for (const [method, url] of [
        ['GET', `/terms/${long}`],
        ['PUT', `/terms/${long}`],
        ['PATCH', `/terms/${long}`],
        ['DELETE', `/terms/${long}`],
        ['GET', `/terms/${long}/history`],
        ['POST', `/terms/${long}/restore`],
      ] as const) {
        const tooLong = await send({ method, url });
        assert.deepEqual(
          [tooLong.statusCode, tooLong.json()],
          [414, { detail: 'The URL is too long.' }],
          `${method} ${url.slice(0, 20)}`,
        );
      }
      const badUrl = await send({ method: 'GET', url: '/terms/%E0%A4%A' });
      assert.deepEqual(
        [badUrl.statusCode, badUrl.json()],
        [400, { detail: 'The URL is malformed (it holds an invalid percent-encoding).' }],
      );
    });

    test('a valid term always round-trips exactly, alone and in a batch', async () => {
      let nextId = 10_000_000;
      await fc.assert(
        fc.asyncProperty(
          fc.record(validFields, { requiredKeys: ['term', 'definition', 'category'] }),
          async (fields) => {
            const term = { ...fields, id: nextId++ };
            const created = await postJson('/terms', JSON.stringify(term));
            assert.equal(created.statusCode, 201);
            assert.equal(created.body, canonical(term));
            const fetched = await send({ method: 'GET', url: `/terms/${term.id}` });
            assert.equal(fetched.body, canonical(term));
            const batchTerm = { ...term, id: nextId++ };
            const bulk = await postJson('/terms/bulk', JSON.stringify([batchTerm]));
            assert.deepEqual(bulk.json(), [{ index: 0, status: 'created', id: batchTerm.id }]);
            const listed = await send({
              method: 'GET',
              url: `/terms?search=${encodeURIComponent(term.term)}&category=${term.category}`,
            });
            assert.ok(
              (listed.json() as unknown[]).some((t) => JSON.stringify(t) === canonical(batchTerm)),
            );
          },
        ),
        { numRuns: RUNS },
      );
    });

    test('PUT, PATCH and restore with any body: 200 exactly when the result is a valid term', async () => {
      const id = 77_000_000;
      const created = await postJson('/terms', JSON.stringify({ ...validExample, id }));
      assert.equal(created.statusCode, 201);
      let current = created.json() as Record<string, unknown>;
      await fc.assert(
        fc.asyncProperty(termText, fc.jsonValue(), async (text, patch) => {
          const body = JSON.parse(text) as Record<string, unknown>;
          const put = await send({
            method: 'PUT',
            url: `/terms/${id}`,
            payload: text,
            headers: { 'content-type': 'application/json' },
          });
          const putValid = isValidTerm(body) && body.id === id;
          assert.equal(put.statusCode, putValid ? 200 : 422, put.body);
          if (putValid) current = put.json();
          const patched = await send({
            method: 'PATCH',
            url: `/terms/${id}`,
            payload: JSON.stringify(patch),
            headers: { 'content-type': 'application/merge-patch+json' },
          });
          const merged = mergePatch(current, patch) as Record<string, unknown>;
          const patchValid =
            typeof patch === 'object' &&
            patch !== null &&
            !Array.isArray(patch) &&
            (!('id' in patch) || patch.id === id) &&
            isValidTerm({ ...merged, id });
          assert.equal(patched.statusCode, patchValid ? 200 : 422, patched.body);
          if (patchValid) current = patched.json();
          const restored = await send({
            method: 'POST',
            url: `/terms/${id}/restore`,
            // Never an integer, so never a revision: always a 422.
            payload: JSON.stringify({
              revision: typeof patch === 'number' ? String(patch) : patch,
            }),
            headers: { 'content-type': 'application/json' },
          });
          assert.equal(restored.statusCode, 422, restored.body);
          assert.equal(
            (await send({ method: 'GET', url: `/terms/${id}` })).body,
            canonical(current),
          );
        }),
        { numRuns: RUNS },
      );
    });

    test('every term in the store is well formed afterwards', async (context) => {
      let count = 0;
      for await (const chunk of t.store.list({})) {
        for (const term of chunk) {
          count++;
          assert.deepEqual(Object.keys(term), [...FIELDS]);
          assert.ok(isValidTerm(term), JSON.stringify(term).slice(0, 200));
          assert.ok(Array.isArray(term.see_also));
        }
      }
      assert.ok(count > 0);
      context.diagnostic(`${sent} hostile requests sent, ${serverErrors} answered 5xx`);
      assert.equal(serverErrors, 0);
    });
  });
}
