import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Type } from 'typebox';
import { buildApp } from '../../src/http/app.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { TEST_CONFIG } from '../helpers/app.ts';
import { enforceOpenApi, OpenApiViolation } from '../helpers/openapi-check.ts';

/** The check every suite runs through `startApp` catches each kind of lie it is meant to. */

async function appWithLiar() {
  const store = openSqliteStore(':memory:');
  const app = await buildApp({ config: TEST_CONFIG, store, logger: false });
  const Detail = Type.Object({ detail: Type.String() });
  app.get('/liar/status', { schema: { response: { 200: Detail } } }, async (_request, reply) =>
    reply.code(418 as 200).send({ detail: 'teapot' }),
  );
  app.get('/liar/body', { schema: { response: { 200: Detail } } }, async (_request, reply) =>
    reply.type('application/json').send('{"detail": 5}' as never),
  );
  app.get('/liar/type', { schema: { response: { 200: Detail } } }, async (_request, reply) =>
    reply.type('text/plain').send('{"detail": "x"}' as never),
  );
  app.get('/liar/warning', { schema: { response: { 200: Detail } } }, async (_request, reply) =>
    reply.header('warning', '299 - "undocumented."').send({ detail: 'x' }),
  );
  await app.ready();
  await enforceOpenApi(app);
  return { app, close: () => app.close().then(() => store.close()) };
}

describe('OpenAPI response check', () => {
  test('an undocumented status, a body off the schema, an undocumented content type and an undocumented Warning are caught', async () => {
    const { app, close } = await appWithLiar();
    try {
      for (const url of ['/liar/status', '/liar/body', '/liar/type', '/liar/warning']) {
        await assert.rejects(app.inject({ method: 'GET', url }), OpenApiViolation, url);
      }
      const honest = await app.inject({ method: 'GET', url: '/terms/1' });
      assert.equal(honest.statusCode, 404);
    } finally {
      await close();
    }
  });
});
