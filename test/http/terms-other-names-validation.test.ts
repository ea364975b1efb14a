import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sampleTerm, startApp, type TestApp } from '../helpers/app.ts';
import { backends } from '../helpers/backends.ts';
import { faultsOf, getJson, postJson, postRaw } from '../helpers/http.ts';

/**
 * `aliases` and `avoid` as every input body takes them (terminology-and-docs.md, "Other names
 * of a term"): validated as `term`, no name twice in a term, and a term without them answering
 * exactly the five original fields. What a store keeps of them is in other-names.test.ts.
 */

const repeated = (loc: (string | number)[], input: string, msg: string) => ({
  loc,
  msg,
  type: 'value_error.name.repeated',
  input,
});
const kubernetes = (id: number, names: Record<string, unknown>) =>
  sampleTerm(id, { term: 'Kubernetes', ...names });

for (const backend of backends()) {
  describe(`other names: validation (${backend.name})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp(backend);
      await postJson(t.app, '/terms', sampleTerm(1));
    });
    after(() => t.close());

    test('each entry is validated as term is, in the same vocabulary, at its own place', async () => {
      const response = await postJson(
        t.app,
        '/terms',
        sampleTerm(10, {
          aliases: ['', ' \u200b', 'x'.repeat(201), 5, '\ud800'],
          avoid: 'Kubernates',
        }),
      );
      assert.deepEqual(faultsOf(response), [
        {
          loc: ['body', 'aliases', 0],
          msg: 'ensure this value has at least 1 characters',
          type: 'value_error.any_str.min_length',
          input: '',
        },
        {
          loc: ['body', 'aliases', 1],
          msg: 'ensure this value has at least 1 characters',
          type: 'value_error.any_str.min_length',
          input: ' \u200b',
        },
        {
          loc: ['body', 'aliases', 2],
          msg: 'ensure this value has at most 200 characters',
          type: 'value_error.any_str.max_length',
          input: 'x'.repeat(201),
        },
        {
          loc: ['body', 'aliases', 3],
          msg: 'str type expected',
          type: 'type_error.str',
          input: 5,
        },
        {
          loc: ['body', 'aliases', 4],
          msg: 'string is not well-formed Unicode (it holds a lone surrogate)',
          type: 'value_error.str.unicode',
          input: '\ud800',
        },
        {
          loc: ['body', 'avoid'],
          msg: 'value is not a valid list',
          type: 'type_error.list',
          input: 'Kubernates',
        },
      ]);
    });

    test('at most 20 entries in each list; 200 characters (code points) is fine', async () => {
      const twenty = Array.from({ length: 20 }, (_, i) => `name ${i}`);
      const ok = await postJson(
        t.app,
        '/terms',
        sampleTerm(11, { aliases: twenty, avoid: ['😀'.repeat(200)] }),
      );
      assert.equal(ok.statusCode, 201, ok.body);
      const tooMany = await postJson(
        t.app,
        '/terms',
        sampleTerm(12, { avoid: [...twenty, 'name 20'] }),
      );
      assert.deepEqual(faultsOf(tooMany), [
        {
          loc: ['body', 'avoid'],
          msg: 'ensure this value has at most 20 items',
          type: 'value_error.list.max_items',
          input: [...twenty, 'name 20'],
        },
      ]);
    });

    test('no name twice in a term, case- and accent-insensitively: the later one is at fault', async () => {
      const response = await postJson(
        t.app,
        '/terms',
        kubernetes(13, {
          aliases: ['K8s', 'kubernétes', 'k8s', 'Kube'],
          avoid: ['Kubernates', 'KUBE', 'kubernates'],
        }),
      );
      assert.deepEqual(faultsOf(response), [
        repeated(['body', 'aliases', 1], 'kubernétes', "'kubernétes' is the name of this term"),
        repeated(['body', 'aliases', 2], 'k8s', "'k8s' is already an alias of this term"),
        repeated(['body', 'avoid', 1], 'KUBE', "'KUBE' is already an alias of this term"),
        repeated(
          ['body', 'avoid', 2],
          'kubernates',
          "'kubernates' is already a name to avoid for this term",
        ),
      ]);
    });

    test('a name to avoid equal to the term itself is refused; blank entries repeat nothing', async () => {
      const own = await postJson(t.app, '/terms', kubernetes(14, { avoid: [' kubernetes '] }));
      assert.deepEqual(faultsOf(own), [
        repeated(['body', 'avoid', 0], ' kubernetes ', "' kubernetes ' is the name of this term"),
      ]);
      const blanks = await postJson(t.app, '/terms', sampleTerm(15, { aliases: [' ', ' '] }));
      assert.deepEqual(
        (faultsOf(blanks) as { type: string }[]).map((fault) => fault.type),
        ['value_error.any_str.min_length', 'value_error.any_str.min_length'],
      );
    });

    test('the other faults come first, the repeated names after them', async () => {
      const response = await postJson(t.app, '/terms', {
        ...kubernetes(16, { aliases: ['K8s', 'K8S'] }),
        category: 'web',
      });
      assert.deepEqual(
        (faultsOf(response) as { loc: unknown[] }[]).map((fault) => fault.loc),
        [
          ['body', 'category'],
          ['body', 'aliases', 1],
        ],
      );
    });

    test('a bulk item is judged the same way, its faults as its detail', async () => {
      const response = await postJson(t.app, '/terms/bulk', [
        kubernetes(20, { aliases: ['K8s'], avoid: ['k8s'] }),
        sampleTerm(21, { avoid: [''] }),
        sampleTerm(22, { aliases: [], avoid: null }),
      ]);
      assert.equal(response.statusCode, 207);
      assert.deepEqual(response.json(), [
        { index: 0, status: 'error', detail: "avoid.0: 'k8s' is already an alias of this term" },
        {
          index: 1,
          status: 'error',
          detail: 'avoid.0: ensure this value has at least 1 characters',
        },
        { index: 2, status: 'created', id: 22 },
      ]);
    });

    test('PUT validates them as POST does', async () => {
      const response = await t.app.inject({
        method: 'PUT',
        url: '/terms/1',
        payload: sampleTerm(1, { aliases: ['Term 1'] }),
      });
      assert.deepEqual(faultsOf(response), [
        repeated(['body', 'aliases', 0], 'Term 1', "'Term 1' is the name of this term"),
      ]);
    });

    test('PATCH judges the merged term: a new name equal to an alias is refused', async () => {
      const patch = (body: unknown) =>
        t.app.inject({
          method: 'PATCH',
          url: '/terms/1',
          payload: JSON.stringify(body),
          headers: { 'content-type': 'application/merge-patch+json' },
        });
      assert.deepEqual(faultsOf(await patch({ avoid: ['term 1'] })), [
        repeated(['body', 'avoid', 0], 'term 1', "'term 1' is the name of this term"),
      ]);
      assert.deepEqual(faultsOf(await patch({ aliases: 'x' })), [
        {
          loc: ['body', 'aliases'],
          msg: 'value is not a valid list',
          type: 'type_error.list',
          input: 'x',
        },
      ]);
    });

    test('empty or null lists are no names: the answer is exactly the five fields', async () => {
      for (const [id, names] of [
        [30, { aliases: [], avoid: [] }],
        [31, { aliases: null, avoid: null }],
      ] as const) {
        const term = sampleTerm(id);
        const response = await postJson(t.app, '/terms', { ...term, ...names });
        assert.equal(response.statusCode, 201, response.body);
        assert.equal(response.body, JSON.stringify(term));
        const fetched = await t.app.inject({ method: 'GET', url: `/terms/${id}` });
        assert.equal(fetched.body, JSON.stringify(term));
      }
    });

    test('the OpenAPI document describes them, with an example, in the answer and every body', async () => {
      type Schema = {
        properties: Record<string, { type?: unknown; maxItems?: number; description?: string }>;
        examples?: Record<string, unknown>[];
        'x-distinct-names'?: boolean;
      };
      const doc = (await getJson(t.app, '/openapi.json')) as {
        components: { schemas: Record<string, Schema> };
        paths: Record<
          string,
          Record<
            string,
            {
              requestBody: {
                content: Record<
                  string,
                  { examples?: Record<string, { value: Record<string, unknown> }> }
                >;
              };
            }
          >
        >;
      };
      const { Term, TermInput, TermPatch } = doc.components.schemas as Record<string, Schema>;
      for (const [name, schema] of Object.entries({ Term, TermInput, TermPatch })) {
        for (const field of ['aliases', 'avoid']) {
          const property = schema?.properties[field];
          assert.ok(property, `${name}.${field}`);
          assert.equal(property.maxItems, 20, `${name}.${field}`);
          assert.ok((property.description ?? '').length > 20, `${name}.${field} is described`);
        }
      }
      assert.deepEqual(TermPatch?.properties.avoid?.type, ['array', 'null']);
      assert.equal(TermInput?.['x-distinct-names'], true);
      const named = (example: Record<string, unknown>) =>
        JSON.stringify(example.aliases) === '["K8s"]' &&
        JSON.stringify(example.avoid) === '["Kubernates"]';
      assert.ok(Term?.examples?.some(named), 'an example of Term');
      const body = doc.paths['/terms']?.post?.requestBody.content['application/json'];
      assert.ok(
        Object.values(body?.examples ?? {}).some(({ value }) => named(value)),
        'an example of a POST /terms body',
      );
    });

    test('an original request keeps its answer byte for byte', async () => {
      const body = '{"id":40,"term":"t","definition":"d","category":"devops","see_also":[7]}';
      const created = await postRaw(t.app, '/terms', body);
      assert.equal(created.statusCode, 201);
      assert.equal(created.body, body);
      const list = await t.app.inject({ method: 'GET', url: '/terms?search=t&category=devops' });
      assert.equal(list.body, `[${body}]`);
    });
  });
}
