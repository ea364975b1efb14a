import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sampleTerm, startApp, type TestApp } from './helpers/app.ts';
import { backends } from './helpers/backends.ts';

for (const backend of backends()) {
  describe(`smoke (${backend.name})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp(backend);
    });
    after(() => t.close());

    test('a created term is listed and fetched', async () => {
      const created = await t.app.inject({ method: 'POST', url: '/terms', payload: sampleTerm(1) });
      assert.equal(created.statusCode, 201);
      const fetched = await t.app.inject({ method: 'GET', url: '/terms/1' });
      assert.deepEqual(fetched.json(), sampleTerm(1));
      const listed = await t.app.inject({ method: 'GET', url: '/terms' });
      assert.deepEqual(listed.json(), [sampleTerm(1)]);
    });
  });
}
