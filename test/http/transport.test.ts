import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import type { TermStore } from '../../src/glossary/term-store.ts';
import { buildApp } from '../../src/http/app.ts';
import { sampleTerm, startApp, TEST_CONFIG, type TestApp } from '../helpers/app.ts';
import { backends } from '../helpers/backends.ts';
import { getJson, postJson, postRaw } from '../helpers/http.ts';
import { enforceOpenApi } from '../helpers/openapi-check.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

for (const backend of backends()) {
  describe(`routes and methods (${backend.name})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp(backend);
    });
    after(() => t.close());

    test('answers an unknown route with 404 Not Found in the contract shape', async () => {
      for (const [method, url] of [
        ['GET', '/nope'],
        ['POST', '/term'],
        ['GET', '/terms/1/extra'],
        ['DELETE', '/'],
        ['GET', '/terms/bulk/more'],
      ] as const) {
        const response = await t.app.inject({ method, url });
        assert.equal(response.statusCode, 404, `${method} ${url}`);
        assert.match(String(response.headers['content-type']), /^application\/json/);
        assert.deepEqual(response.json(), { detail: 'Not Found' });
      }
    });

    test('answers a known path asked with another method with 405 and an Allow header', async () => {
      for (const [method, url, allow] of [
        ['GET', '/terms/bulk', 'POST'],
        ['HEAD', '/terms/bulk', 'POST'],
        ['PUT', '/terms/bulk', 'POST'],
        ['GET', '/terms/bulk/', 'POST'],
        ['POST', '/terms/1', 'GET, HEAD, PUT, PATCH, DELETE'],
        ['POST', '/terms/1/history', 'GET, HEAD'],
        ['DELETE', '/terms/1/history', 'GET, HEAD'],
        ['GET', '/terms/1/restore', 'POST'],
        ['PUT', '/terms/1/restore', 'POST'],
        ['DELETE', '/terms', 'GET, HEAD, POST'],
        ['PUT', '/terms', 'GET, HEAD, POST'],
        ['POST', '/healthz', 'GET, HEAD'],
        ['POST', '/readyz', 'GET, HEAD'],
        ['POST', '/openapi.json', 'GET, HEAD'],
      ] as const) {
        const response = await t.app.inject({ method, url });
        assert.equal(response.statusCode, 405, `${method} ${url}`);
        assert.equal(response.headers.allow, allow, `${method} ${url}`);
        if (method !== 'HEAD') assert.deepEqual(response.json(), { detail: 'Method Not Allowed' });
      }
    });

    test('accepts a trailing slash on every route', async () => {
      assert.equal((await postJson(t.app, '/terms/', sampleTerm(1))).statusCode, 201);
      assert.equal((await postJson(t.app, '/terms/bulk/', [sampleTerm(2)])).statusCode, 207);
      assert.deepEqual(await getJson(t.app, '/terms/'), [sampleTerm(1), sampleTerm(2)]);
      assert.deepEqual(await getJson(t.app, '/terms/2/'), sampleTerm(2));
      assert.deepEqual(await getJson(t.app, '/healthz/'), { status: 'ok' });
    });
  });

  describe(`content types and body limits (${backend.name})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp(backend);
    });
    after(() => t.close());

    test('answers a body that is not JSON with 415 and stores nothing', async () => {
      const body = JSON.stringify(sampleTerm(1));
      for (const url of ['/terms', '/terms/bulk']) {
        for (const type of [
          'text/plain',
          'application/x-www-form-urlencoded',
          'application/xml',
          'text/json',
          'application/jsonx',
        ]) {
          const response = await postRaw(t.app, url, body, type);
          assert.equal(response.statusCode, 415, `${url} ${type}`);
          assert.deepEqual(response.json(), {
            detail: `Unsupported media type '${type}': send the body as application/json.`,
          });
        }
        const untyped = await postRaw(t.app, url, body, null);
        assert.equal(untyped.statusCode, 415, `${url} without a content type`);
        assert.deepEqual(untyped.json(), {
          detail: 'A request body needs the Content-Type application/json.',
        });
      }
      assert.deepEqual(await getJson(t.app, '/terms'), []);
    });

    test('accepts application/json with a charset, in any case, and +json types', async () => {
      const types = [
        'application/json',
        'application/json; charset=utf-8',
        'application/json;charset=UTF-8',
        'Application/JSON',
        'application/merge-patch+json',
        'application/vnd.api+json; charset=utf-8',
      ];
      for (const [i, type] of types.entries()) {
        const single = await postRaw(t.app, '/terms', JSON.stringify(sampleTerm(i)), type);
        assert.equal(single.statusCode, 201, `${type}: ${single.body}`);
        const bulk = await postRaw(
          t.app,
          '/terms/bulk',
          JSON.stringify([sampleTerm(100 + i)]),
          type,
        );
        assert.equal(bulk.statusCode, 207, `${type}: ${bulk.body}`);
      }
    });

    test('answers a body over 16 MiB with 413 without storing it', async () => {
      const body = JSON.stringify(sampleTerm(999, { definition: 'x'.repeat(16 * 1024 * 1024) }));
      const response = await postRaw(t.app, '/terms', body);
      assert.equal(response.statusCode, 413);
      assert.deepEqual(response.json(), {
        detail: 'Request body is larger than the limit of 16777216 bytes.',
      });
      const fetched = await t.app.inject({ method: 'GET', url: '/terms/999' });
      assert.equal(fetched.statusCode, 404);
    });

    test('honours configured body and batch limits', async () => {
      const small = await startApp(backend, { bodyLimit: 2048, batchLimit: 3 });
      try {
        const big = await postJson(
          small.app,
          '/terms',
          sampleTerm(1, { definition: 'x'.repeat(3000) }),
        );
        assert.equal(big.statusCode, 413);
        assert.deepEqual(big.json(), {
          detail: 'Request body is larger than the limit of 2048 bytes.',
        });
        const four = [1, 2, 3, 4].map((id) => sampleTerm(id));
        const tooMany = await postJson(small.app, '/terms/bulk', four);
        assert.equal(tooMany.statusCode, 413);
        assert.deepEqual(tooMany.json(), { detail: 'A bulk request may hold at most 3 terms.' });
        const three = await postJson(small.app, '/terms/bulk', four.slice(0, 3));
        assert.equal(three.statusCode, 207);
        assert.deepEqual(ids(await getJson(small.app, '/terms')), [1, 2, 3]);
      } finally {
        await small.close();
      }
    });
  });

  describe(`CORS (${backend.name})`, () => {
    test('allows any origin by default, preflight included', async () => {
      const t = await startApp(backend);
      try {
        const simple = await t.app.inject({
          method: 'GET',
          url: '/terms',
          headers: { origin: 'https://anywhere.example' },
        });
        assert.equal(simple.headers['access-control-allow-origin'], '*');
        assert.match(String(simple.headers['access-control-expose-headers']), /x-request-id/);
        const preflight = await t.app.inject({
          method: 'OPTIONS',
          url: '/terms/bulk',
          headers: {
            origin: 'https://anywhere.example',
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'content-type',
          },
        });
        assert.equal(preflight.statusCode, 204);
        assert.equal(preflight.headers['access-control-allow-origin'], '*');
        assert.match(String(preflight.headers['access-control-allow-methods']), /POST/);
        assert.match(String(preflight.headers['access-control-allow-headers']), /content-type/i);
      } finally {
        await t.close();
      }
    });

    test('allows only the configured origins when a list is given', async () => {
      const t = await startApp(backend, {
        corsOrigins: ['https://app.example', 'http://localhost:3000'],
      });
      try {
        for (const origin of ['https://app.example', 'http://localhost:3000']) {
          const allowed = await t.app.inject({ method: 'GET', url: '/terms', headers: { origin } });
          assert.equal(allowed.headers['access-control-allow-origin'], origin);
          assert.match(String(allowed.headers.vary), /Origin/);
        }
        const other = await t.app.inject({
          method: 'GET',
          url: '/terms',
          headers: { origin: 'https://evil.example' },
        });
        assert.equal(other.statusCode, 200);
        assert.equal(other.headers['access-control-allow-origin'], undefined);
        const preflight = await t.app.inject({
          method: 'OPTIONS',
          url: '/terms',
          headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
        });
        assert.equal(preflight.headers['access-control-allow-origin'], undefined);
      } finally {
        await t.close();
      }
    });
  });

  describe(`documentation and probes (${backend.name})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp(backend);
    });
    after(() => t.close());

    test('GET /openapi.json is OpenAPI 3.1 describing every response of the term routes', async () => {
      const doc = (await getJson(t.app, '/openapi.json')) as {
        openapi: string;
        paths: Record<string, Record<string, OpenApiOperation>>;
        components: {
          schemas: Record<
            string,
            {
              required?: string[];
              enum?: string[];
              properties?: Record<string, { maxLength?: number }>;
            }
          >;
        };
      };
      assert.match(doc.openapi, /^3\.1\./);
      const responses = (path: string, method: string) =>
        Object.keys(doc.paths[path]?.[method]?.responses ?? {}).sort();
      // 429 only arises when RATE_LIMIT is set; 503 whenever the storage cannot serve.
      // 401 and 403 once a token exists (reads: with READ_ACCESS=token).
      // 421 only with ALLOWED_HOSTS; 431 and 500 may answer any request, 408 a slow body.
      const access = ['400', '401', '403', '421', '431', '500'];
      const sorted = (codes: string[]) => [...codes].sort();
      assert.deepEqual(
        responses('/terms', 'get'),
        sorted(['200', '304', ...access, '422', '429', '503']),
      );
      assert.deepEqual(
        responses('/terms', 'post'),
        sorted(['201', ...access, '408', '413', '415', '422', '429', '503']),
      );
      assert.deepEqual(
        responses('/terms/{id}', 'get'),
        sorted(['200', '304', ...access, '404', '414', '422', '429', '503']),
      );
      assert.deepEqual(
        responses('/terms/bulk', 'post'),
        sorted(['207', ...access, '408', '413', '415', '422', '429', '503']),
      );
      for (const method of ['put', 'patch']) {
        assert.deepEqual(
          responses('/terms/{id}', method),
          sorted(['200', ...access, '404', '408', '412', '413', '414', '415', '422', '429', '503']),
        );
      }
      assert.deepEqual(
        responses('/terms/{id}', 'delete'),
        sorted(['204', ...access, '404', '412', '414', '422', '429', '503']),
      );
      assert.deepEqual(
        responses('/terms/{id}/history', 'get'),
        sorted(['200', ...access, '404', '414', '422', '429', '503']),
      );
      assert.deepEqual(
        responses('/terms/{id}/restore', 'post'),
        sorted(['200', ...access, '404', '408', '412', '413', '414', '415', '422', '429', '503']),
      );
      assert.ok(doc.paths['/healthz']?.get && doc.paths['/readyz']?.get);
      // The same schemas that validate requests: the limits and the category set show.
      const schemas = doc.components.schemas;
      assert.deepEqual(
        doc.paths['/terms']?.post?.requestBody?.content['application/json']?.schema,
        {
          $ref: '#/components/schemas/TermInput',
        },
      );
      const body = schemas.TermInput;
      assert.deepEqual(body?.required, ['id', 'term', 'definition', 'category']);
      assert.equal(body?.properties?.term?.maxLength, 200);
      assert.equal(body?.properties?.definition?.maxLength, 10_000);
      assert.deepEqual(schemas.Category?.enum, ['frontend', 'backend', 'devops', 'docs-as-code']);
      const query = doc.paths['/terms']?.get?.parameters?.map((p) => `${p.in}:${p.name}`);
      assert.deepEqual(query, [
        'query:category',
        'query:search',
        'query:sort',
        'query:limit',
        'query:offset',
        'query:q',
        'query:from',
        'query:links_to',
        'header:if-none-match',
      ]);
      assert.deepEqual(schemas.ValidationFault?.required, ['loc', 'msg', 'type']);
    });

    test('GET /docs serves an HTML reference whose every asset comes from this service', async () => {
      const page = await t.app.inject({ method: 'GET', url: '/docs' });
      assert.equal(page.statusCode, 200);
      assert.match(String(page.headers['content-type']), /^text\/html/);
      assert.doesNotMatch(page.body, /https?:\/\//);
      const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? '');
      assert.ok(assets.length >= 3, 'the page loads its scripts and styles');
      for (const asset of assets) {
        assert.match(asset, /^\/(?!\/)/, `asset ${asset} is a path on this host`);
        const response = await t.app.inject({ method: 'GET', url: asset });
        assert.equal(response.statusCode, 200, asset);
      }
      const initializer = await t.app.inject({
        method: 'GET',
        url: '/docs/static/swagger-initializer.js',
      });
      assert.match(initializer.body, /validatorUrl: null/);
      assert.match(initializer.body, /url: resolveUrl\('\.\/json'\)/);
      assert.match(String(page.headers['content-security-policy']), /script-src 'self' ;/);
    });

    test('GET /healthz and GET /readyz answer 200 while the storage answers', async () => {
      for (const url of ['/healthz', '/readyz']) {
        const response = await t.app.inject({ method: 'GET', url });
        assert.equal(response.statusCode, 200);
        assert.deepEqual(response.json(), { status: 'ok' });
      }
    });

    test('GET /readyz answers 503 with Retry-After once the storage is gone; /healthz stays 200', async () => {
      const gone = await startApp(backend);
      try {
        await gone.store.close();
        const ready = await gone.app.inject({ method: 'GET', url: '/readyz' });
        assert.equal(ready.statusCode, 503);
        assert.equal(ready.headers['retry-after'], '5');
        assert.deepEqual(ready.json(), {
          detail: 'The glossary storage is unavailable; try again later.',
        });
        const live = await gone.app.inject({ method: 'GET', url: '/healthz' });
        assert.equal(live.statusCode, 200);
      } finally {
        await gone.app.close();
      }
    });
  });

  describe(`request ids (${backend.name})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp(backend);
    });
    after(() => t.close());

    test('echoes a sane x-request-id', async () => {
      for (const id of ['abc-123', 'trace:0a1b.2c_3', 'x'.repeat(128)]) {
        const response = await t.app.inject({
          method: 'GET',
          url: '/terms',
          headers: { 'x-request-id': id },
        });
        assert.equal(response.headers['x-request-id'], id);
      }
    });

    test('generates a fresh id when none or an unsafe one is given, on errors too', async () => {
      const seen = new Set<string>();
      for (const given of [undefined, 'has space', 'x'.repeat(129), 'new\u00e9', '', 'a/b']) {
        const response = await t.app.inject({
          method: 'GET',
          url: '/terms/abc',
          headers: given === undefined ? {} : { 'x-request-id': given },
        });
        const id = String(response.headers['x-request-id']);
        assert.match(id, UUID, `given ${given}`);
        seen.add(id);
      }
      assert.equal(seen.size, 6);
    });
  });

  describe(`unexpected failures (${backend.name})`, () => {
    test('a failing store gives 500 with only {"detail":"Internal Server Error"}; the cause is logged', async () => {
      const store = await backend.open();
      // A store whose reads fail with an ordinary error, as a bug would: the error path is the
      // point here, not the database.
      const broken: TermStore = {
        ...store,
        backend: store.backend,
        async get() {
          throw new Error('SELECT secret FROM terms: something broke');
        },
        list() {
          throw new TypeError('cannot read properties of undefined');
        },
      };
      const lines: string[] = [];
      const logs = new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      });
      const app = await buildApp({
        config: TEST_CONFIG,
        store: broken,
        logger: { level: 'error', stream: logs },
      });
      // The 500 is an answer the document lists for every operation.
      await enforceOpenApi(app);
      try {
        for (const url of ['/terms/1', '/terms']) {
          const response = await app.inject({
            method: 'GET',
            url,
            headers: { 'x-request-id': `req-${url.length}` },
          });
          assert.equal(response.statusCode, 500);
          assert.equal(response.body, '{"detail":"Internal Server Error"}');
          assert.match(String(response.headers['content-type']), /^application\/json/);
        }
        const logged = lines.join('');
        assert.match(logged, /SELECT secret FROM terms: something broke/);
        assert.match(logged, /"reqId":"req-8"/);
        assert.match(logged, /cannot read properties of undefined/);
        // The service still answers after the failures.
        const healthy = await app.inject({ method: 'GET', url: '/healthz' });
        assert.equal(healthy.statusCode, 200);
      } finally {
        await app.close();
        await store.close();
      }
    });
  });
}

interface OpenApiOperation {
  responses?: Record<string, { content: Record<string, { schema?: unknown }> }>;
  parameters?: { in: string; name: string }[];
  requestBody?: {
    content: Record<
      string,
      {
        schema?: {
          required?: string[];
          properties?: Record<string, { maxLength?: number; enum?: string[] }>;
        };
      }
    >;
  };
}

function ids(terms: unknown): number[] {
  return (terms as { id: number }[]).map((term) => term.id);
}
