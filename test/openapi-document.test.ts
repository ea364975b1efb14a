import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { sampleTerm, startApp, type TestApp } from './helpers/app.ts';
import { backends, sqliteBackend } from './helpers/backends.ts';
import { getJson } from './helpers/http.ts';
import { arbitraryFor } from './helpers/schema-arbitrary.ts';

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
  responses: Record<string, { description: string; content?: Record<string, unknown> }>;
}
interface Document {
  info: { description: string };
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
        for (const media of Object.values(response.content ?? {}) as { example?: unknown }[]) {
          assert.ok(media.example !== undefined, `${method} ${path} ${status} has an example`);
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
                    fc.oneof(
                      { arbitrary: fc.integer({ min: -3, max: 25 }), weight: 2 },
                      { arbitrary: arbitraryFor(p.schema, components), weight: 1 },
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
