import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { sampleTerm, startApp, type TestApp } from '../helpers/app.ts';
import { backends } from '../helpers/backends.ts';
import { ENUM_MSG, faultsOf, getJson, postJson } from '../helpers/http.ts';

/** PUT, PATCH, DELETE, history and restore: editing-and-access.md, through HTTP. */

type Entry = { revision: number; action: string; at: string; by: string | null; term: unknown };

function send(
  app: FastifyInstance,
  method: 'PUT' | 'PATCH' | 'DELETE' | 'POST',
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method,
    url,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

async function etagOf(app: FastifyInstance, id: number): Promise<string> {
  const response = await app.inject({ method: 'GET', url: `/terms/${id}` });
  assert.equal(response.statusCode, 200);
  return String(response.headers.etag);
}

async function historyOf(app: FastifyInstance, id: number): Promise<Entry[]> {
  return (await getJson(app, `/terms/${id}/history`)) as Entry[];
}

const ids = (list: unknown) => (list as { id: number }[]).map((term) => term.id);

for (const backend of backends()) {
  describe(`PUT /terms/{id} (${backend.name})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp(backend);
    });
    after(() => t.close());
    beforeEach(async () => {
      await postJson(t.app, '/terms/bulk', [sampleTerm(1), sampleTerm(2), sampleTerm(3)]);
    });

    test('replaces the term, keeps its place, answers it with its new ETag', async () => {
      const next = sampleTerm(2, { term: 'Two', see_also: [1, 3] });
      const response = await send(t.app, 'PUT', '/terms/2', next);
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), next);
      assert.equal(response.headers.etag, await etagOf(t.app, 2));
      assert.deepEqual((await getJson(t.app, '/terms')) as unknown[], [
        sampleTerm(1),
        next,
        sampleTerm(3),
      ]);
    });

    test('validates the body as POST /terms does; a body id other than the path id is 422', async () => {
      const bad = await send(t.app, 'PUT', '/terms/1', { id: 1, term: ' ', category: 'web' });
      assert.deepEqual(
        faultsOf(bad).map((fault) => (fault as { loc: unknown[] }).loc),
        [
          ['body', 'definition'],
          ['body', 'term'],
          ['body', 'category'],
        ],
      );
      const moved = await send(t.app, 'PUT', '/terms/1', sampleTerm(9));
      assert.deepEqual(faultsOf(moved), [
        {
          loc: ['body', 'id'],
          msg: 'unexpected value; permitted: 1',
          type: 'value_error.const',
          input: 9,
        },
      ]);
      assert.deepEqual(await getJson(t.app, '/terms/1'), sampleTerm(1));
    });

    test('a missing term is 404 and nothing is created', async () => {
      const response = await send(t.app, 'PUT', '/terms/404', sampleTerm(404));
      assert.equal(response.statusCode, 404);
      assert.deepEqual(response.json(), { detail: 'Term not found' });
      assert.equal((await t.app.inject('/terms/404')).statusCode, 404);
    });

    test('If-Match: the current ETag or * applies the change; a stale or weak tag is 412', async () => {
      const etag = await etagOf(t.app, 3);
      const first = await send(t.app, 'PUT', '/terms/3', sampleTerm(3, { term: 'A' }), {
        'if-match': etag,
      });
      assert.equal(first.statusCode, 200);
      const stale = await send(t.app, 'PUT', '/terms/3', sampleTerm(3, { term: 'B' }), {
        'if-match': etag,
      });
      assert.equal(stale.statusCode, 412);
      assert.deepEqual(stale.json(), { detail: 'Term has changed since it was read.' });
      const weak = await send(t.app, 'PUT', '/terms/3', sampleTerm(3, { term: 'B' }), {
        'if-match': `W/${first.headers.etag}`,
      });
      assert.equal(weak.statusCode, 412);
      const listed = await send(t.app, 'PUT', '/terms/3', sampleTerm(3, { term: 'C' }), {
        'if-match': `"nope", ${first.headers.etag}`,
      });
      assert.equal(listed.statusCode, 200);
      const any = await send(t.app, 'PUT', '/terms/3', sampleTerm(3, { term: 'D' }), {
        'if-match': '*',
      });
      assert.equal(any.statusCode, 200);
      assert.equal(((await getJson(t.app, '/terms/3')) as { term: string }).term, 'D');
    });

    test('a malformed If-Match matches nothing: 412, whatever it holds', async () => {
      const unchanged = await getJson(t.app, '/terms/3');
      for (const method of ['PUT', 'PATCH', 'DELETE'] as const) {
        const etag = await etagOf(t.app, 3);
        const bare = etag.slice(1, -1);
        for (const value of [
          `w/${etag}`,
          `garbage${etag}garbage`,
          `${etag}${etag}`,
          `"a""${bare}"`,
          `${etag} ${etag}`,
          `*, ${etag}`,
          bare,
        ]) {
          const body =
            method === 'DELETE'
              ? undefined
              : method === 'PUT'
                ? sampleTerm(3, { term: 'Z' })
                : { term: 'Z' };
          const response = await send(t.app, method, '/terms/3', body, { 'if-match': value });
          assert.equal(response.statusCode, 412, `${method} If-Match: ${value}`);
          assert.deepEqual(response.json(), { detail: 'Term has changed since it was read.' });
        }
      }
      const [latest] = await historyOf(t.app, 3);
      assert.ok(latest);
      const restore = await send(
        t.app,
        'POST',
        '/terms/3/restore',
        { revision: latest.revision },
        {
          'if-match': `garbage${await etagOf(t.app, 3)}`,
        },
      );
      assert.equal(restore.statusCode, 412);
      assert.deepEqual(await getJson(t.app, '/terms/3'), unchanged);
    });

    test('acts on the earliest term of a repeated id, as GET does', async () => {
      await postJson(t.app, '/terms', sampleTerm(1, { term: 'Later one' }));
      await send(t.app, 'PUT', '/terms/1', sampleTerm(1, { term: 'Edited' }));
      const names = ((await getJson(t.app, '/terms')) as { id: number; term: string }[])
        .filter((term) => term.id === 1)
        .map((term) => term.term);
      assert.deepEqual(names, ['Edited', 'Later one']);
    });
  });

  describe(`PATCH /terms/{id} (${backend.name})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp(backend);
      await postJson(t.app, '/terms', sampleTerm(5, { see_also: [1, 2] }));
    });
    after(() => t.close());

    const patch = (body: unknown, headers: Record<string, string> = {}, raw?: string) =>
      t.app.inject({
        method: 'PATCH',
        url: '/terms/5',
        headers: { 'content-type': 'application/merge-patch+json', ...headers },
        payload: raw ?? JSON.stringify(body),
      });

    test('changes only the members given; null clears see_also; unknown members are ignored', async () => {
      const response = await patch({ definition: 'New definition.', colour: 'red' });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(
        response.json(),
        sampleTerm(5, { definition: 'New definition.', see_also: [1, 2] }),
      );
      const cleared = await patch({ see_also: null, category: 'devops' });
      assert.deepEqual(
        cleared.json(),
        sampleTerm(5, { definition: 'New definition.', category: 'devops' }),
      );
      assert.equal(cleared.headers.etag, await etagOf(t.app, 5));
    });

    test('the merged term is validated whole: removing a required member or a bad value is 422', async () => {
      assert.deepEqual(faultsOf(await patch({ term: null })), [
        { loc: ['body', 'term'], msg: 'field required', type: 'value_error.missing' },
      ]);
      assert.deepEqual(faultsOf(await patch({ category: 'web', see_also: ['x'] })), [
        { loc: ['body', 'category'], msg: ENUM_MSG, type: 'type_error.enum', input: 'web' },
        {
          loc: ['body', 'see_also', 0],
          msg: 'value is not a valid integer',
          type: 'type_error.integer',
          input: 'x',
        },
      ]);
      assert.deepEqual(faultsOf(await patch(['not', 'an', 'object'])), [
        {
          loc: ['body'],
          msg: 'value is not a valid dict',
          type: 'type_error.dict',
          input: ['not', 'an', 'object'],
        },
      ]);
      assert.equal(faultsOf(await patch({ id: 6 })).length, 1);
      assert.equal((await patch({ id: 5, term: 'Same id' })).statusCode, 200);
    });

    test('takes application/json too; another type is 415 with Accept-Patch', async () => {
      const json = await patch({ term: 'Plain JSON' }, { 'content-type': 'application/json' });
      assert.equal(json.statusCode, 200);
      for (const type of ['application/json-patch+json', 'text/plain']) {
        const refused = await patch([], { 'content-type': type });
        assert.equal(refused.statusCode, 415, type);
        assert.equal(
          refused.headers['accept-patch'],
          'application/merge-patch+json, application/json',
        );
      }
      assert.equal((await patch(undefined, {}, '{"term": ')).statusCode, 422);
    });

    test('If-Match guards a patch; a missing term is 404', async () => {
      const etag = await etagOf(t.app, 5);
      assert.equal((await patch({ term: 'X' }, { 'if-match': '"stale"' })).statusCode, 412);
      assert.equal((await patch({ term: 'X' }, { 'if-match': etag })).statusCode, 200);
      const missing = await t.app.inject({
        method: 'PATCH',
        url: '/terms/77',
        headers: { 'content-type': 'application/json' },
        payload: '{}',
      });
      assert.equal(missing.statusCode, 404);
    });
  });

  describe(`DELETE, history and restore (${backend.name})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp(backend);
    });
    after(() => t.close());

    test('DELETE is 204; the term is gone, its id free for a bulk import, its history kept', async () => {
      await postJson(t.app, '/terms/bulk', [sampleTerm(10), sampleTerm(11)]);
      const response = await send(t.app, 'DELETE', '/terms/10');
      assert.equal(response.statusCode, 204);
      assert.equal(response.body, '');
      assert.equal((await t.app.inject('/terms/10')).statusCode, 404);
      assert.deepEqual(ids(await getJson(t.app, '/terms')), [11]);
      assert.equal((await send(t.app, 'DELETE', '/terms/10')).statusCode, 404);
      const bulk = await postJson(t.app, '/terms/bulk', [sampleTerm(10, { term: 'Again' })]);
      assert.deepEqual(bulk.json(), [{ index: 0, status: 'created', id: 10 }]);
      const history = await historyOf(t.app, 10);
      assert.deepEqual(
        history.map((entry) => entry.action),
        ['created', 'deleted', 'created'],
      );
    });

    test('DELETE honours If-Match; a duplicate takes the place of the deleted term', async () => {
      await postJson(t.app, '/terms', sampleTerm(20, { term: 'First' }));
      await postJson(t.app, '/terms', sampleTerm(20, { term: 'Second' }));
      assert.equal(
        (await send(t.app, 'DELETE', '/terms/20', undefined, { 'if-match': '"x"' })).statusCode,
        412,
      );
      const etag = await etagOf(t.app, 20);
      const deleted = await send(t.app, 'DELETE', '/terms/20', undefined, { 'if-match': etag });
      assert.equal(deleted.statusCode, 204);
      assert.equal(((await getJson(t.app, '/terms/20')) as { term: string }).term, 'Second');
    });

    test('history lists every change newest first, with RFC 3339 times and no author while open', async () => {
      const before = Date.now();
      await postJson(t.app, '/terms', sampleTerm(30));
      await send(t.app, 'PATCH', '/terms/30', { term: 'Thirty' });
      await send(t.app, 'DELETE', '/terms/30');
      const history = await historyOf(t.app, 30);
      assert.deepEqual(
        history.map((entry) => [entry.action, (entry.term as { term: string }).term, entry.by]),
        [
          ['deleted', 'Thirty', null],
          ['updated', 'Thirty', null],
          ['created', 'Term 30', null],
        ],
      );
      for (const entry of history) {
        assert.match(entry.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        assert.ok(
          Date.parse(entry.at) >= before - 1000 && Date.parse(entry.at) <= Date.now() + 1000,
        );
        assert.deepEqual(Object.keys(entry), ['revision', 'action', 'at', 'by', 'term']);
      }
      const [deleted, updated, created] = history;
      assert.ok(
        (deleted?.revision ?? 0) > (updated?.revision ?? 0) &&
          (updated?.revision ?? 0) > (created?.revision ?? 0),
      );
      const never = await t.app.inject('/terms/31/history');
      assert.equal(never.statusCode, 404);
      assert.deepEqual(never.json(), { detail: 'Term not found' });
    });

    test('history comes a page at a time: 100 entries, X-Total-Count, and a next link that neither repeats nor skips while the term changes', async () => {
      await postJson(t.app, '/terms', sampleTerm(35));
      for (let i = 0; i < 130; i += 1) {
        assert.equal(
          (await send(t.app, 'PATCH', '/terms/35', { definition: `Version ${i}.` })).statusCode,
          200,
        );
      }
      const first = await t.app.inject('/terms/35/history');
      assert.equal(first.statusCode, 200);
      const page = first.json() as Entry[];
      assert.equal(page.length, 100);
      assert.equal(first.headers['x-total-count'], '131');
      const cursor = page.at(-1)?.revision;
      assert.equal(first.headers.link, `</terms/35/history?before=${cursor}>; rel="next"`);
      // Edits while the client pages: they arrive before its cursor.
      for (let i = 0; i < 3; i += 1) await send(t.app, 'PATCH', '/terms/35', { term: `T${i}` });
      const next = /<([^>]+)>; rel="next"/.exec(String(first.headers.link))?.[1] ?? '';
      const second = await t.app.inject(next);
      const rest = second.json() as Entry[];
      assert.equal(rest.length, 31);
      assert.equal(second.headers['x-total-count'], '31');
      assert.equal(second.headers.link, undefined);
      assert.equal(rest.at(-1)?.action, 'created');
      const revisions = [...page, ...rest].map((entry) => entry.revision);
      assert.equal(new Set(revisions).size, 131);
      assert.deepEqual(
        revisions,
        [...revisions].sort((a, b) => b - a),
      );

      const middle = await t.app.inject('/terms/35/history?limit=10&offset=5');
      assert.equal((middle.json() as Entry[]).length, 10);
      assert.equal(middle.headers['x-total-count'], '134');
      const tenth = (middle.json() as Entry[]).at(-1)?.revision;
      assert.equal(
        middle.headers.link,
        `</terms/35/history?limit=10&before=${tenth}>; rel="next", </terms/35/history?limit=10&offset=0>; rel="prev"`,
      );
      const none = await t.app.inject('/terms/35/history?before=1');
      assert.equal(none.statusCode, 200);
      assert.deepEqual(none.json(), []);
      assert.equal(none.headers['x-total-count'], '0');
      assert.equal((await t.app.inject('/terms/36/history?limit=5')).statusCode, 404);
    });

    test('history paging refuses what is not a page: 422 at the parameter', async () => {
      await postJson(t.app, '/terms', sampleTerm(37));
      for (const [query, field] of [
        ['limit=0', 'limit'],
        ['limit=101', 'limit'],
        ['limit=x', 'limit'],
        ['offset=-1', 'offset'],
        ['before=0', 'before'],
        ['before=1.5', 'before'],
      ] as const) {
        const faults = faultsOf(await t.app.inject(`/terms/37/history?${query}`));
        assert.deepEqual(
          faults.map((fault) => (fault as { loc: unknown }).loc),
          [['query', field]],
          query,
        );
      }
    });

    test('concurrent edits of one term leave a history whose times never go back', async () => {
      await postJson(t.app, '/terms', sampleTerm(38));
      await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          send(t.app, 'PATCH', '/terms/38', { definition: `Concurrent ${i}.` }),
        ),
      );
      const times = (await historyOf(t.app, 38)).map((entry) => Date.parse(entry.at));
      assert.equal(times.length, 41);
      assert.deepEqual(
        times,
        [...times].sort((a, b) => b - a),
      );
    });

    test('restore re-creates a deleted term at its old place and answers it with its ETag', async () => {
      await postJson(t.app, '/terms/bulk', [sampleTerm(40), sampleTerm(41), sampleTerm(42)]);
      await send(t.app, 'PUT', '/terms/41', sampleTerm(41, { term: 'Edited 41' }));
      await send(t.app, 'DELETE', '/terms/41');
      const history = await historyOf(t.app, 41);
      const created = history.find((entry) => entry.action === 'created');
      const restored = await send(t.app, 'POST', '/terms/41/restore', {
        revision: created?.revision,
      });
      assert.equal(restored.statusCode, 200);
      assert.deepEqual(restored.json(), sampleTerm(41));
      assert.equal(restored.headers.etag, await etagOf(t.app, 41));
      const listed = ids(await getJson(t.app, '/terms')).filter((id) => id >= 40 && id <= 42);
      assert.deepEqual(listed, [40, 41, 42]);
      assert.deepEqual(
        (await historyOf(t.app, 41)).map((entry) => entry.action),
        ['restored', 'deleted', 'updated', 'created'],
      );
    });

    test('restore: an unknown revision is 422, an id that never existed 404, a stale If-Match 412', async () => {
      await postJson(t.app, '/terms', sampleTerm(50));
      const [created] = await historyOf(t.app, 50);
      const unknown = await send(t.app, 'POST', '/terms/50/restore', { revision: 999_999_999 });
      assert.deepEqual(faultsOf(unknown), [
        {
          loc: ['body', 'revision'],
          msg: 'no revision 999999999 in the history of term 50',
          type: 'value_error',
          input: 999_999_999,
        },
      ]);
      const foreign = await send(t.app, 'POST', '/terms/51/restore', {
        revision: created?.revision,
      });
      assert.equal(foreign.statusCode, 404);
      assert.equal(
        faultsOf(await send(t.app, 'POST', '/terms/50/restore', { revision: 'x' })).length,
        1,
      );
      assert.equal(faultsOf(await send(t.app, 'POST', '/terms/50/restore', {})).length, 1);
      const stale = await send(
        t.app,
        'POST',
        '/terms/50/restore',
        { revision: created?.revision },
        { 'if-match': '"stale"' },
      );
      assert.equal(stale.statusCode, 412);
      await send(t.app, 'DELETE', '/terms/50');
      const deleted = await send(
        t.app,
        'POST',
        '/terms/50/restore',
        { revision: created?.revision },
        { 'if-match': '*' },
      );
      assert.equal(deleted.statusCode, 412, 'a deleted term matches no tag, not even *');
    });

    test('POST /terms answers 201 with Location', async () => {
      const response = await postJson(t.app, '/terms', sampleTerm(-7));
      assert.equal(response.statusCode, 201);
      assert.equal(response.headers.location, '/terms/-7');
    });
  });

  describe(`every change shows at once, through another instance too (${backend.name})`, () => {
    let location: Awaited<ReturnType<typeof backend.location>>;
    let writer: TestApp;
    let reader: TestApp;
    before(async () => {
      location = await backend.location();
      const fromLocation = { ...backend, open: () => location.open() };
      writer = await startApp(fromLocation);
      reader = await startApp(fromLocation);
    });
    after(async () => {
      await writer?.close();
      await reader?.close();
      await location?.dispose();
    });

    test('no stale 304, count, search hit or "already exists" after any acknowledged write', async () => {
      await postJson(writer.app, '/terms/bulk', [
        sampleTerm(1, { term: 'Kubernetes' }),
        sampleTerm(2, { term: 'Docker' }),
      ]);
      const url = '/terms?search=kube&limit=10';
      let etag = '';
      const look = async () => {
        const response = await reader.app.inject({
          method: 'GET',
          url,
          headers: { 'if-none-match': etag || '"none"' },
        });
        assert.equal(response.statusCode, 200, 'a stale 304');
        etag = String(response.headers.etag);
        return {
          total: Number(response.headers['x-total-count']),
          names: (response.json() as { term: string }[]).map((term) => term.term),
        };
      };
      assert.deepEqual(await look(), { total: 1, names: ['Kubernetes'] });
      await send(writer.app, 'PUT', '/terms/2', sampleTerm(2, { term: 'Kubeadm' }));
      assert.deepEqual(await look(), { total: 2, names: ['Kubernetes', 'Kubeadm'] });
      await send(writer.app, 'PATCH', '/terms/1', { term: 'Podman' });
      assert.deepEqual(await look(), { total: 1, names: ['Kubeadm'] });
      await send(writer.app, 'DELETE', '/terms/2');
      assert.deepEqual(await look(), { total: 0, names: [] });
      const [deleted] = await historyOf(reader.app, 2);
      await send(writer.app, 'POST', '/terms/2/restore', { revision: deleted?.revision });
      assert.deepEqual(await look(), { total: 1, names: ['Kubeadm'] });
      await send(writer.app, 'DELETE', '/terms/1');
      const bulk = await postJson(reader.app, '/terms/bulk', [sampleTerm(1, { term: 'Kube' })]);
      assert.deepEqual(bulk.json(), [{ index: 0, status: 'created', id: 1 }]);
      assert.deepEqual(await look(), { total: 2, names: ['Kubeadm', 'Kube'] });
      const term = await reader.app.inject({ method: 'GET', url: '/terms/1' });
      const stale = await reader.app.inject({
        method: 'GET',
        url: '/terms/1',
        headers: { 'if-none-match': String(term.headers.etag) },
      });
      assert.equal(stale.statusCode, 304);
      await send(writer.app, 'PATCH', '/terms/1', { definition: 'Changed.' });
      const fresh = await reader.app.inject({
        method: 'GET',
        url: '/terms/1',
        headers: { 'if-none-match': String(term.headers.etag) },
      });
      assert.equal(fresh.statusCode, 200);
    });
  });
}
