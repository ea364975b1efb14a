import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { errors, type HttpError } from '../../src/http/errors.ts';
import { EXAMPLE_TERM } from '../../src/http/wire.ts';
import { sampleTerm, startApp, type TestApp } from '../helpers/app.ts';
import { backends, sqliteBackend } from '../helpers/backends.ts';
import { getJson, postJson } from '../helpers/http.ts';
import { arbitraryFor } from '../helpers/schema-arbitrary.ts';

/**
 * The OpenAPI document is written for people (named schemas, real descriptions, examples) and
 * tells the truth: requests generated from it, valid and not, are answered only as it says
 * (every answer passes through the check of test/helpers/openapi-check.ts).
 */

type Schema = Record<string, unknown>;
interface Parameter {
  in: string;
  name: string;
  required?: boolean;
  schema: Schema;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: Schema; example?: unknown }> };
  responses: Record<
    string,
    { description: string; content?: Record<string, unknown>; headers?: Record<string, Schema> }
  >;
}
interface Document {
  info: { description: string; license?: unknown };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; securitySchemes: Record<string, Schema> };
}

const RUNS = Number(process.env.HOSTILE_RUNS ?? 200);
const BATCH_LIMIT = 50;

/** Every inline object schema of the document, as JSON text, wherever it stands. */
function inlineObjects(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) {
    for (const item of value) inlineObjects(item, found);
  } else if (typeof value === 'object' && value !== null) {
    const schema = value as Schema;
    if (schema.type === 'object' && Object.keys(schema.properties ?? {}).length > 1) {
      found.push(JSON.stringify(schema));
    }
    for (const [key, child] of Object.entries(schema)) {
      if (key !== 'examples' && key !== 'example') inlineObjects(child, found);
    }
  }
  return found;
}

describe('the OpenAPI document reads as written for people', () => {
  let t: TestApp;
  let doc: Document;
  before(async () => {
    t = await startApp(sqliteBackend, { batchLimit: BATCH_LIMIT });
    doc = (await getJson(t.app, '/openapi.json')) as Document;
  });
  after(() => t.close());

  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, operation]) => ({ path, method, operation })),
    );

  test('schemas used more than once are named components, never inline repeats', () => {
    for (const name of ['Term', 'TermInput', 'TermPatch', 'TermId', 'Category', 'Message']) {
      assert.ok(doc.components.schemas[name], `components.schemas.${name}`);
    }
    const inline = inlineObjects(doc.paths);
    const repeated = inline.filter((text, i) => inline.indexOf(text) !== i);
    assert.deepEqual(repeated, []);
  });

  test('every response has a real description; HEAD responses have no body', () => {
    for (const { path, method, operation } of operations()) {
      for (const [status, response] of Object.entries(operation.responses)) {
        assert.ok(response.description.length > 10, `${method} ${path} ${status}`);
        assert.notEqual(response.description, 'Default Response', `${method} ${path} ${status}`);
        if (method === 'head') assert.equal(response.content, undefined, `HEAD ${path} ${status}`);
      }
    }
  });

  test('request bodies and terms carry examples', () => {
    for (const name of ['Term', 'HistoryEntry', 'BulkItemResult']) {
      assert.ok(Array.isArray(doc.components.schemas[name]?.examples), name);
    }
    for (const { path, method, operation } of operations()) {
      for (const media of Object.values(operation.requestBody?.content ?? {})) {
        const { example, examples } = media as { example?: unknown; examples?: unknown };
        assert.ok((example ?? examples) !== undefined, `the body of ${method} ${path} has one`);
      }
      for (const [status, response] of Object.entries(operation.responses)) {
        for (const media of Object.values(response.content ?? {})) {
          const examples = examplesOf(media as Parameters<typeof examplesOf>[0]);
          assert.ok(examples.length > 0, `${method} ${path} ${status} has an example`);
        }
      }
    }
  });

  test('the bulk body is any array of 1 to BATCH_LIMIT values, each judged on its own', () => {
    const schema = doc.paths['/terms/bulk']?.post?.requestBody?.content['application/json']
      ?.schema as Schema;
    assert.equal(schema.type, 'array');
    assert.equal(schema.minItems, 1);
    assert.equal(schema.maxItems, BATCH_LIMIT);
    assert.equal((schema.items as Schema).type, undefined, 'items are not constrained');
  });

  test('conditional headers, statuses and the token scheme are declared where they apply', () => {
    const headers = (path: string, method: string) =>
      (doc.paths[path]?.[method]?.parameters ?? [])
        .filter((parameter) => parameter.in === 'header')
        .map((parameter) => parameter.name);
    for (const path of ['/terms', '/terms/{id}']) {
      assert.deepEqual(headers(path, 'get'), ['if-none-match'], path);
      assert.ok(doc.paths[path]?.get?.responses['304'], `304 on GET ${path}`);
    }
    for (const method of ['put', 'patch', 'delete']) {
      assert.deepEqual(headers('/terms/{id}', method), ['if-match'], method);
    }
    assert.deepEqual(headers('/terms/{id}/restore', 'post'), ['if-match']);
    for (const [path, method] of [
      ['/terms', 'post'],
      ['/terms/bulk', 'post'],
      ['/terms/{id}', 'put'],
      ['/terms/{id}', 'patch'],
    ] as const) {
      const responses = doc.paths[path]?.[method]?.responses ?? {};
      assert.ok(responses['413'] && responses['415'], `413 and 415 on ${method} ${path}`);
    }
    assert.match(doc.info.description, /405/);
    assert.equal(doc.components.securitySchemes.bearerToken?.scheme, 'bearer');
  });
});

/** On a term's path, often a valid term too, so that an edit of a seeded term surely succeeds. */
function bodyFor(generated: fc.Arbitrary<unknown>, path: string): fc.Arbitrary<unknown> {
  if (!path.includes('{id}')) return generated;
  return fc.oneof(
    { arbitrary: generated, weight: 1 },
    { arbitrary: fc.integer({ min: 0, max: 19 }).map(sampleTerm), weight: 2 },
  );
}

const DOT_SEGMENT = /^\.{1,2}$/;

for (const backend of backends()) {
  describe(`requests generated from the OpenAPI document (${backend.name})`, () => {
    let t: TestApp;
    let doc: Document;
    before(async () => {
      t = await startApp(backend, { batchLimit: BATCH_LIMIT });
      doc = (await getJson(t.app, '/openapi.json')) as Document;
      const seed = Array.from({ length: 20 }, (_, i) => sampleTerm(i));
      await t.app.inject({ method: 'POST', url: '/terms/bulk', payload: seed });
    });
    after(() => t.close());

    test('every operation answers what the document says, for valid and invalid requests', async () => {
      const components = doc.components.schemas;
      const seen = new Map<string, Set<number>>();
      for (const [path, ops] of Object.entries(doc.paths)) {
        for (const [method, operation] of Object.entries(ops)) {
          const parameters = operation.parameters ?? [];
          const request = fc.record({
            path: fc.record(
              Object.fromEntries(
                parameters
                  .filter((p) => p.in === 'path')
                  .map((p) => [
                    p.name,
                    fc
                      .oneof(
                        { arbitrary: fc.integer({ min: -3, max: 25 }), weight: 2 },
                        { arbitrary: arbitraryFor(p.schema, components), weight: 1 },
                      )
                      // A client resolves `.` and `..` (and their %2E spellings) as dot
                      // segments (RFC 3986, 5.2.4) before sending, so `/terms/.` is `/terms/`:
                      // such a value never reaches this path's route.
                      // (An object is sent as its JSON, which is never a dot segment.)
                      .filter(
                        (value) =>
                          (typeof value === 'object' && value !== null) ||
                          !DOT_SEGMENT.test(String(value)),
                      ),
                  ]),
              ),
            ),
            query: fc.record(
              Object.fromEntries(
                parameters
                  .filter((p) => p.in === 'query')
                  .map((p) => [p.name, arbitraryFor(p.schema, components)]),
              ),
              { requiredKeys: [] },
            ),
            body: operation.requestBody
              ? bodyFor(
                  arbitraryFor(
                    Object.values(operation.requestBody.content)[0]?.schema ?? {},
                    components,
                  ),
                  path,
                )
              : fc.constant(undefined),
          });
          await fc.assert(
            fc.asyncProperty(request, async ({ path: values, query, body }) => {
              const url = path.replace(/\{(\w+)\}/g, (_, name: string) =>
                encodeURIComponent(
                  typeof values[name] === 'object' && values[name] !== null
                    ? JSON.stringify(values[name])
                    : String(values[name]),
                ),
              );
              const search = new URLSearchParams(
                Object.entries(query).map(([name, value]): [string, string] => [
                  name,
                  typeof value === 'string' ? value : JSON.stringify(value),
                ]),
              );
              // A body naming its own id (PUT) mostly names the path's, or it is a 422.
              if (
                isObject(body) &&
                'id' in body &&
                'id' in values &&
                // An object may have no way to become a number at all (`{"toString": ""}`).
                Math.abs(typeof values.id === 'object' ? Number.NaN : Number(values.id)) % 4
              ) {
                body.id = values.id;
              }
              const options: InjectOptions = {
                method: method.toUpperCase() as InjectOptions['method'],
                url: search.size > 0 ? `${url}?${search}` : url,
              };
              if (body !== undefined) {
                options.payload = JSON.stringify(body);
                options.headers = { 'content-type': 'application/json' };
              }
              const response = await t.app.inject(options);
              assert.ok(response.statusCode < 500, `${method} ${options.url}: ${response.body}`);
              const statuses = seen.get(operation.operationId) ?? new Set();
              statuses.add(response.statusCode);
              seen.set(operation.operationId, statuses);
            }),
            { numRuns: Math.ceil(RUNS / 4) },
          );
        }
      }
      // The generated requests reached both the successes and the refusals.
      for (const id of ['getTerm', 'listTerms', 'createTerm', 'importTerms', 'replaceTerm']) {
        const statuses = [...(seen.get(id) ?? [])];
        assert.ok(
          statuses.some((status) => status < 300),
          `${id}: ${statuses}`,
        );
        assert.ok(
          statuses.some((status) => status >= 400),
          `${id}: ${statuses}`,
        );
      }
    });
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Values of an OpenAPI media type or parameter: `example`, or each of `examples`. */
function examplesOf(holder: { example?: unknown; examples?: Record<string, { value: unknown }> }) {
  if (holder.example !== undefined) return [holder.example];
  return Object.values(holder.examples ?? {}).map((example) => example.value);
}

const HOLE = '\u0001';
/**
 * Every sentence the errors table can answer with, by status, as a pattern in which its
 * arguments (a limit, a host, a content type) match anything.
 */
function tableSentences(): { status: number; pattern: RegExp }[] {
  const sentences: { status: number; pattern: RegExp }[] = [];
  for (const make of Object.values(errors) as ((...args: unknown[]) => HttpError)[]) {
    for (const args of [[HOLE, HOLE, HOLE], []]) {
      let error: HttpError;
      try {
        error = make(...args);
      } catch {
        continue; // this factory needs its arguments
      }
      if (typeof error.detail !== 'string') continue;
      const source = error.detail
        .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
        .replace(new RegExp(`${HOLE}|NaN|undefined`, 'g'), '.+');
      sentences.push({ status: error.statusCode, pattern: new RegExp(`^${source}$`) });
    }
  }
  return sentences;
}

/** A schema of the document compiled as a generated client or Prism would check it. */
function compileFromDocument(doc: Document, schema: Schema) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addFormat('well-formed-unicode', {
    type: 'string',
    validate: (value: string) => value.isWellFormed(),
  });
  ajv.addSchema({ $id: 'openapi.json', components: doc.components });
  return ajv.compile(
    JSON.parse(
      JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/'),
    ) as Schema,
  );
}

describe('the OpenAPI document says what the service does', () => {
  let t: TestApp;
  let doc: Document;
  before(async () => {
    t = await startApp(sqliteBackend, { batchLimit: BATCH_LIMIT });
    doc = (await getJson(t.app, '/openapi.json')) as Document;
  });
  after(() => t.close());

  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, operation]) => ({ path, method, operation })),
    );
  const MESSAGE = '#/components/schemas/Message';
  const messageResponses = () =>
    operations().flatMap(({ path, method, operation }) =>
      Object.entries(operation.responses).flatMap(([status, response]) =>
        Object.values(response.content ?? {})
          .filter((media) => (media as { schema?: Schema }).schema?.$ref === MESSAGE)
          .map((media) => ({ where: `${method} ${path} ${status}`, status, response, media })),
      ),
    );

  test('every {"detail"} answer has an example the errors table gives for its status', () => {
    const sentences = tableSentences();
    const answers = messageResponses();
    assert.ok(answers.length > 50, `${answers.length} answers`);
    for (const { where, status, media } of answers) {
      const examples = examplesOf(media as Parameters<typeof examplesOf>[0]);
      assert.ok(examples.length > 0, `${where} has an example`);
      for (const example of examples) {
        const { detail } = example as { detail: string };
        assert.ok(
          sentences.some((s) => String(s.status) === status && s.pattern.test(detail)),
          `${where}: ${detail} is not an answer of the errors table with that status`,
        );
      }
    }
  });

  test('each answer has its own description; the Message schema describes itself', () => {
    const message = doc.components.schemas.Message as Schema;
    const described = new Set(messageResponses().map(({ response }) => response.description));
    assert.ok(typeof message.description === 'string');
    assert.ok(!described.has(message.description as string), String(message.description));
    assert.equal(message.examples, undefined, 'no one example stands for every error');
    for (const { operation, method, path } of operations()) {
      const texts = Object.values(operation.responses).map((response) => response.description);
      assert.equal(new Set(texts).size, texts.length, `${method} ${path}: ${texts}`);
    }
  });

  test('the examples of a read operation, sent together, are a valid request', async () => {
    await postJson(t.app, '/terms', EXAMPLE_TERM);
    const reads = operations().filter(({ method }) => method === 'get');
    assert.ok(reads.length >= 5);
    for (const { path, operation } of reads) {
      const parameters = (operation.parameters ?? []) as (Parameter & {
        example?: unknown;
        examples?: Record<string, { value: unknown }>;
      })[];
      const exampleOf = (name: string) => {
        const parameter = parameters.find((p) => p.name === name);
        return parameter ? examplesOf(parameter)[0] : undefined;
      };
      const url = path.replace(/\{(\w+)\}/g, (_, name: string) => String(exampleOf(name)));
      const query = new URLSearchParams(
        parameters
          .filter((p) => p.in === 'query' && examplesOf(p).length > 0)
          .map((p): [string, string] => [p.name, String(examplesOf(p)[0])]),
      );
      const response = await t.app.inject({ method: 'GET', url: `${url}?${query}` });
      assert.equal(response.statusCode, 200, `GET ${url}?${query}: ${response.body}`);
    }
  });

  test('POST /terms: Location names the earliest term with the id, as the document says', async () => {
    const location = doc.paths['/terms']?.post?.responses['201']?.headers?.location as {
      description: string;
    };
    assert.match(location.description, /earliest/);
    const first = await postJson(t.app, '/terms', sampleTerm(77, { term: 'First' }));
    const again = await postJson(t.app, '/terms', sampleTerm(77, { term: 'Again' }));
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers.location, first.headers.location);
    const named = await getJson(t.app, String(again.headers.location));
    assert.equal((named as { term: string }).term, 'First');
  });

  test('a bulk result is created with an id or an error with a detail, keyed on status', () => {
    const result = doc.components.schemas.BulkItemResult as Schema;
    assert.deepEqual(result.discriminator, {
      propertyName: 'status',
      mapping: {
        created: '#/components/schemas/BulkItemCreated',
        error: '#/components/schemas/BulkItemError',
      },
    });
    const validate = compileFromDocument(doc, { $ref: '#/components/schemas/BulkItemResult' });
    for (const good of [
      { index: 0, status: 'created', id: 42 },
      { index: 1, status: 'error', detail: 'Duplicate ID 7 in batch.' },
    ]) {
      assert.ok(validate(good), JSON.stringify(good));
    }
    for (const bad of [
      { index: 0, status: 'created' },
      { index: 0, status: 'created', id: 42, detail: 'x' },
      { index: 0, status: 'error', id: 42 },
      { index: 0, status: 'error', detail: 'x', id: 42 },
    ]) {
      assert.ok(!validate(bad), JSON.stringify(bad));
    }
  });

  test('every operation lists 500 and 431, 408 where it reads a body, 421 unless it is a probe', () => {
    for (const { path, method, operation } of operations()) {
      const statuses = Object.keys(operation.responses);
      const where = `${method} ${path}`;
      assert.ok(statuses.includes('500') && statuses.includes('431'), where);
      assert.equal(statuses.includes('408'), operation.requestBody !== undefined, where);
      assert.equal(statuses.includes('421'), !['/healthz', '/readyz'].includes(path), where);
    }
  });

  test('every operation id, HEAD ones included, is a readable identifier of its own', () => {
    const ids = operations().map(({ operation }) => operation.operationId);
    for (const id of ids) assert.match(id, /^[a-z][A-Za-z]+$/);
    assert.equal(new Set(ids).size, ids.length);
    assert.equal(doc.paths['/terms']?.head?.operationId, 'listTermsHead');
  });

  test('info names the license and tells of OPTIONS, unknown paths and other methods', async () => {
    const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8')) as { license: string };
    assert.deepEqual(doc.info.license, { name: pkg.license, identifier: pkg.license });
    for (const answer of [
      JSON.stringify({ detail: errors.routeNotFound().detail }),
      JSON.stringify({ detail: errors.methodNotAllowed('GET').detail }),
      'OPTIONS',
      '204',
    ]) {
      assert.ok(doc.info.description.includes(answer), answer);
    }
    const options = await t.app.inject({ method: 'OPTIONS', url: '/terms' });
    assert.equal(options.statusCode, 204);
    const unknown = await t.app.inject({ method: 'GET', url: '/nowhere/at/all' });
    assert.deepEqual(unknown.json(), { detail: errors.routeNotFound().detail });
  });
});

describe('a Host outside ALLOWED_HOSTS is 421 wherever the document says', () => {
  test('every operation but the probes answers 421, and each answer is documented', async () => {
    const t = await startApp(sqliteBackend, { allowedHosts: ['localhost'] });
    try {
      const doc = (await getJson(t.app, '/openapi.json')) as Document;
      for (const [path, ops] of Object.entries(doc.paths)) {
        for (const method of Object.keys(ops)) {
          // Every answer passes through the check of the served document (openapi-check.ts).
          const response = await t.app.inject({
            method: method.toUpperCase() as InjectOptions['method'],
            url: path.replace('{id}', '42'),
            headers: { host: 'attacker.example' },
          });
          const probe = path === '/healthz' || path === '/readyz';
          assert.equal(response.statusCode, probe ? 200 : 421, `${method} ${path}`);
        }
      }
    } finally {
      await t.close();
    }
  });
});

for (const backend of backends()) {
  describe(`the PATCH body schema (${backend.name})`, () => {
    let t: TestApp;
    let doc: Document;
    before(async () => {
      t = await startApp(backend);
      doc = (await getJson(t.app, '/openapi.json')) as Document;
      await postJson(t.app, '/terms', sampleTerm(5, { see_also: [1, 2] }));
    });
    after(() => t.close());

    test('refuses exactly the bodies the service refuses, for every field limit', async () => {
      const content = doc.paths['/terms/{id}']?.patch?.requestBody?.content ?? {};
      assert.deepEqual(Object.keys(content), ['application/merge-patch+json', 'application/json']);
      const validate = compileFromDocument(
        doc,
        content['application/merge-patch+json']?.schema as Schema,
      );
      const text = (max: number) =>
        fc.oneof(
          fc.string({ minLength: 1, maxLength: 20 }).map((s) => `x${s}`),
          fc.constantFrom(
            '',
            ' ',
            '\u3000\t',
            '\ud800',
            'a\udc00b',
            'x'.repeat(max),
            'x'.repeat(max + 1),
            '😀'.repeat(max),
            '😀'.repeat(max + 1),
          ),
          fc.constantFrom(null, 5, true, ['x'], { x: 1 }),
        );
      const id = fc.oneof(
        fc.constant(5),
        fc.constantFrom(null, '5', 5.5, true, 2 ** 53, -(2 ** 53)),
      );
      const seeAlso = fc.oneof(
        fc.constant(null),
        fc.array(fc.integer({ min: -5, max: 5 }), { maxLength: 3 }),
        fc.constantFrom(
          Array.from({ length: 100 }, (_, i) => i),
          Array.from({ length: 101 }, (_, i) => i),
          [Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER],
          [2 ** 53],
          ['1'],
          [1.5],
          [null],
          'x',
          { 0: 1 },
        ),
      );
      const patch = fc.record(
        {
          id,
          term: text(200),
          definition: text(10_000),
          category: fc.oneof(
            fc.constantFrom('frontend', 'devops'),
            fc.constantFrom('web', null, 1),
          ),
          see_also: seeAlso,
          note: fc.jsonValue({ maxDepth: 1 }),
        },
        { requiredKeys: [] },
      );
      let refused = 0;
      await fc.assert(
        fc.asyncProperty(patch, async (body) => {
          const response = await t.app.inject({
            method: 'PATCH',
            url: '/terms/5',
            payload: JSON.stringify(body),
            headers: { 'content-type': 'application/merge-patch+json' },
          });
          const documented = validate(body);
          if (!documented) refused++;
          assert.equal(
            response.statusCode,
            documented ? 200 : 422,
            `${JSON.stringify(body).slice(0, 300)}: ${response.body.slice(0, 300)}`,
          );
        }),
        { numRuns: RUNS },
      );
      assert.ok(refused > RUNS / 10, `${refused} refused`);
    });
  });
}
