import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sampleTerm, startApp, type TestApp } from '../helpers/app.ts';
import { backends } from '../helpers/backends.ts';
import { faultsOf, getJson, postJson } from '../helpers/http.ts';

/**
 * A term's other names through the HTTP API, stored (terminology-and-docs.md, "Other names of
 * a term"): carried by every body, cleared by a merge patch's null, kept in history and
 * restore, and the rule across the glossary answered as a 422 naming the other term.
 */

const WEBHOOK = {
  id: 42,
  term: 'Webhook',
  definition: 'An HTTP callback a service sends when something happens.',
  category: 'backend',
  see_also: [],
  aliases: ['HTTP callback'],
  avoid: ['web hook', 'Web-hook'],
};
const conflict = (loc: (string | number)[], input: unknown, msg: string) => ({
  loc,
  msg,
  type: 'value_error.name.conflict',
  input,
});
const patch = (t: TestApp, id: number, body: unknown) =>
  t.app.inject({
    method: 'PATCH',
    url: `/terms/${id}`,
    payload: JSON.stringify(body),
    headers: { 'content-type': 'application/merge-patch+json' },
  });

for (const backend of backends()) {
  describe(`other names, stored (${backend.name})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp(backend);
      const created = await postJson(t.app, '/terms', WEBHOOK);
      assert.equal(created.statusCode, 201, created.body);
    });
    after(() => t.close());

    test('POST answers them after the five fields, and every read answers the same', async () => {
      const term = sampleTerm(1, { term: 'Kubernetes', aliases: ['K8s'], avoid: ['Kubernates'] });
      const created = await postJson(t.app, '/terms', term);
      assert.equal(created.statusCode, 201, created.body);
      assert.equal(created.body, JSON.stringify(term));
      const fetched = await t.app.inject({ method: 'GET', url: '/terms/1' });
      assert.equal(fetched.body, created.body);
      const listed = await t.app.inject({ method: 'GET', url: '/terms?search=kubernetes' });
      assert.equal(listed.body, `[${created.body}]`);
      const history = (await getJson(t.app, '/terms/1/history')) as { term: unknown }[];
      assert.deepEqual(history[0]?.term, term);
    });

    test('PUT replaces them; PATCH replaces a list, and null or [] clears it', async () => {
      await postJson(t.app, '/terms', sampleTerm(2));
      const put = await t.app.inject({
        method: 'PUT',
        url: '/terms/2',
        payload: sampleTerm(2, { aliases: ['T2', 'Two'], avoid: ['Tew'] }),
      });
      assert.equal(put.statusCode, 200, put.body);
      assert.deepEqual(put.json(), sampleTerm(2, { aliases: ['T2', 'Two'], avoid: ['Tew'] }));
      const etag = put.headers.etag;

      const aliasesOnly = await patch(t, 2, { aliases: ['Second'] });
      assert.deepEqual(aliasesOnly.json(), sampleTerm(2, { aliases: ['Second'], avoid: ['Tew'] }));
      assert.notEqual(aliasesOnly.headers.etag, etag);
      const cleared = await patch(t, 2, { aliases: null, avoid: [] });
      assert.equal(cleared.statusCode, 200, cleared.body);
      assert.equal(cleared.body, JSON.stringify(sampleTerm(2)));
      assert.equal((await t.app.inject({ method: 'GET', url: '/terms/2' })).body, cleared.body);
    });

    test('restore brings a revision back with its names', async () => {
      await postJson(t.app, '/terms', sampleTerm(3, { aliases: ['Three'] }));
      await patch(t, 3, { aliases: null });
      const history = (await getJson(t.app, '/terms/3/history')) as { revision: number }[];
      const first = history.at(-1)?.revision;
      const restored = await postJson(t.app, '/terms/3/restore', { revision: first });
      assert.equal(restored.statusCode, 200, restored.body);
      assert.deepEqual(restored.json(), sampleTerm(3, { aliases: ['Three'] }));
    });

    test('a name or alias equal to another term’s name to avoid is 422 naming that term', async () => {
      const named = await postJson(t.app, '/terms', sampleTerm(4, { term: 'Web Hook' }));
      assert.deepEqual(faultsOf(named), [
        conflict(['body', 'term'], 'Web Hook', "'Web Hook' is a name to avoid for term 42."),
      ]);
      const alias = await postJson(
        t.app,
        '/terms',
        sampleTerm(4, { aliases: ['Callback', 'web-hook'] }),
      );
      assert.deepEqual(faultsOf(alias), [
        conflict(['body', 'aliases', 1], 'web-hook', "'web-hook' is a name to avoid for term 42."),
      ]);
      assert.equal((await t.app.inject({ method: 'GET', url: '/terms/4' })).statusCode, 404);
    });

    test('a name to avoid equal to another term’s name or alias is 422 naming that term', async () => {
      const name = await postJson(t.app, '/terms', sampleTerm(5, { avoid: ['x', 'WEBHOOK'] }));
      assert.deepEqual(faultsOf(name), [
        conflict(['body', 'avoid', 1], 'WEBHOOK', "'WEBHOOK' is the name of term 42."),
      ]);
      const alias = await postJson(t.app, '/terms', sampleTerm(5, { avoid: ['http callback'] }));
      assert.deepEqual(faultsOf(alias), [
        conflict(['body', 'avoid', 0], 'http callback', "'http callback' is an alias of term 42."),
      ]);
    });

    test('PUT and PATCH are refused by the rule, and nothing changes', async () => {
      await postJson(t.app, '/terms', sampleTerm(6));
      const put = await t.app.inject({
        method: 'PUT',
        url: '/terms/6',
        payload: sampleTerm(6, { term: 'web hook' }),
      });
      assert.deepEqual(faultsOf(put), [
        conflict(['body', 'term'], 'web hook', "'web hook' is a name to avoid for term 42."),
      ]);
      const patched = await patch(t, 6, { avoid: ['Webhook'] });
      assert.deepEqual(faultsOf(patched), [
        conflict(['body', 'avoid', 0], 'Webhook', "'Webhook' is the name of term 42."),
      ]);
      assert.deepEqual(await getJson(t.app, '/terms/6'), sampleTerm(6));
    });

    test('restoring a state whose names another term now holds is 422 at revision', async () => {
      await postJson(t.app, '/terms', sampleTerm(7, { avoid: ['Gateway'] }));
      await patch(t, 7, { avoid: null });
      await postJson(t.app, '/terms', sampleTerm(8, { term: 'Gateway' }));
      const history = (await getJson(t.app, '/terms/7/history')) as { revision: number }[];
      const first = history.at(-1)?.revision as number;
      const restored = await postJson(t.app, '/terms/7/restore', { revision: first });
      assert.deepEqual(faultsOf(restored), [
        conflict(['body', 'revision'], first, "'Gateway' is the name of term 8."),
      ]);
    });

    test('a bulk item refused by the rule gets the fault as its detail; the others are stored', async () => {
      const response = await postJson(t.app, '/terms/bulk', [
        sampleTerm(9, { term: 'Web hook' }),
        sampleTerm(10, { term: 'Queue', avoid: ['MQ'] }),
        sampleTerm(11, { aliases: ['mq'] }),
        sampleTerm(12, { aliases: ['Q12'] }),
      ]);
      assert.equal(response.statusCode, 207);
      assert.deepEqual(response.json(), [
        { index: 0, status: 'error', detail: "term: 'Web hook' is a name to avoid for term 42." },
        { index: 1, status: 'created', id: 10 },
        { index: 2, status: 'error', detail: "aliases.0: 'mq' is a name to avoid for term 10." },
        { index: 3, status: 'created', id: 12 },
      ]);
      assert.deepEqual(await getJson(t.app, '/terms/12'), sampleTerm(12, { aliases: ['Q12'] }));
    });
  });
}
