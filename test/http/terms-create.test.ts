import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sampleTerm, startApp, type TestApp } from '../helpers/app.ts';
import { backends } from '../helpers/backends.ts';
import { ENUM_MSG, faultsOf, getJson, postJson, postRaw } from '../helpers/http.ts';

const MAX_ID = Number.MAX_SAFE_INTEGER; // 2^53 − 1
const FIELDS = ['id', 'term', 'definition', 'category', 'see_also'];
const integerFault = (loc: (string | number)[], input: unknown) => ({
  loc,
  msg: 'value is not a valid integer',
  type: 'type_error.integer',
  input,
});

for (const backend of backends()) {
  describe(`POST /terms (${backend.name})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp(backend);
    });
    after(() => t.close());

    test('creates a term and answers 201 with exactly the five fields in contract order', async () => {
      const term = {
        id: 100,
        term: 'Idempotency',
        definition: 'Same request, same effect.',
        category: 'backend',
        see_also: [3, 1, 2],
      };
      const response = await postJson(t.app, '/terms', term);
      assert.equal(response.statusCode, 201);
      assert.match(String(response.headers['content-type']), /^application\/json/);
      assert.equal(response.body, JSON.stringify(term));
      assert.deepEqual(Object.keys(response.json()), FIELDS);
      assert.deepEqual(await getJson(t.app, '/terms/100'), term);
    });

    test('keeps the fields in contract order whatever order the client sends them in', async () => {
      const response = await postRaw(
        t.app,
        '/terms',
        '{"see_also":[7],"category":"devops","definition":"d","term":"t","id":101}',
      );
      assert.equal(response.statusCode, 201);
      assert.equal(
        response.body,
        '{"id":101,"term":"t","definition":"d","category":"devops","see_also":[7]}',
      );
      const fetched = await t.app.inject({ method: 'GET', url: '/terms/101' });
      assert.equal(fetched.body, response.body);
    });

    test('stores and returns see_also as [] when it is omitted or null', async () => {
      const { see_also: _, ...withoutSeeAlso } = sampleTerm(102);
      const omitted = await postJson(t.app, '/terms', withoutSeeAlso);
      assert.equal(omitted.statusCode, 201);
      assert.deepEqual(omitted.json().see_also, []);
      const nulled = await postJson(t.app, '/terms', sampleTerm(103, { see_also: null }));
      assert.equal(nulled.statusCode, 201);
      assert.deepEqual(nulled.json().see_also, []);
      assert.deepEqual((await getJson(t.app, '/terms/102')) as object, sampleTerm(102));
      assert.deepEqual((await getJson(t.app, '/terms/103')) as object, sampleTerm(103));
    });

    test('accepts an empty see_also, 100 see_also ids and ids that do not exist', async () => {
      const hundred = Array.from({ length: 100 }, (_, i) => 900_000 + i);
      const response = await postJson(t.app, '/terms', sampleTerm(104, { see_also: hundred }));
      assert.equal(response.statusCode, 201);
      assert.deepEqual(response.json().see_also, hundred);
      const empty = await postJson(t.app, '/terms', sampleTerm(105, { see_also: [] }));
      assert.equal(empty.statusCode, 201);
    });

    test('accepts zero, negative and the largest safe ids, in id and in see_also', async () => {
      for (const id of [0, -1, -MAX_ID, MAX_ID]) {
        const seeAlso = [id, id === 0 ? 0 : -id];
        const response = await postJson(t.app, '/terms', sampleTerm(id, { see_also: seeAlso }));
        assert.equal(response.statusCode, 201, `id ${id}: ${response.body}`);
        assert.equal(response.json().id, id);
        assert.deepEqual((await getJson(t.app, `/terms/${id}`)) as { id: number }, {
          ...sampleTerm(id),
          see_also: seeAlso,
        });
      }
    });

    test('ignores unknown fields: they are neither stored nor echoed', async () => {
      const response = await postJson(t.app, '/terms', {
        ...sampleTerm(106),
        extra: 'x',
        nested: { a: 1 },
        ID: 5,
      });
      assert.equal(response.statusCode, 201);
      assert.deepEqual(Object.keys(response.json()), FIELDS);
      assert.deepEqual(Object.keys((await getJson(t.app, '/terms/106')) as object), FIELDS);
    });

    test('treats a __proto__ key as plain data: ignored, never merged into the term', async () => {
      const polluted = await postRaw(
        t.app,
        '/terms',
        '{"__proto__":{"category":"frontend","admin":true},"id":107,"term":"t","definition":"d","category":"devops"}',
      );
      assert.equal(polluted.statusCode, 201);
      assert.equal(
        polluted.body,
        '{"id":107,"term":"t","definition":"d","category":"devops","see_also":[]}',
      );
      // Fields offered only through __proto__ do not count as given.
      const onlyProto = await postRaw(
        t.app,
        '/terms',
        '{"__proto__":{"id":108,"term":"t","definition":"d","category":"devops"}}',
      );
      assert.deepEqual(
        faultsOf(onlyProto).map((f) => (f as { loc: unknown }).loc),
        [
          ['body', 'id'],
          ['body', 'term'],
          ['body', 'definition'],
          ['body', 'category'],
        ],
      );
      assert.equal(({} as Record<string, unknown>).admin, undefined);
    });

    test('stores term and definition exactly as sent, spaces and Unicode included', async () => {
      const term = sampleTerm(109, {
        term: '  Ünïcødé 😀 "quoted" \\ back\tslash  ',
        definition: ' line one\nline two \u0000 end ',
      });
      const response = await postJson(t.app, '/terms', term);
      assert.equal(response.statusCode, 201);
      assert.deepEqual(response.json(), term);
      assert.deepEqual(await getJson(t.app, '/terms/109'), term);
    });

    test('accepts a surrogate pair written as JSON escapes and returns the character', async () => {
      const response = await postRaw(
        t.app,
        '/terms',
        '{"id":110,"term":"smile \\ud83d\\ude00","definition":"d","category":"frontend"}',
      );
      assert.equal(response.statusCode, 201);
      assert.equal(response.json().term, 'smile 😀');
    });

    test('allows a duplicate id; GET /terms/{id} then returns the earliest, the list both', async () => {
      const first = sampleTerm(111, { term: 'First' });
      const second = sampleTerm(111, { term: 'Second', category: 'devops' });
      assert.equal((await postJson(t.app, '/terms', first)).statusCode, 201);
      const again = await postJson(t.app, '/terms', second);
      assert.equal(again.statusCode, 201);
      assert.deepEqual(again.json(), second);
      assert.deepEqual(await getJson(t.app, '/terms/111'), first);
      const listed = (await getJson(t.app, '/terms')) as { id: number }[];
      assert.deepEqual(
        listed.filter((term) => term.id === 111),
        [first, second],
      );
    });
  });

  describe(`POST /terms validation (${backend.name})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp(backend);
    });
    after(async () => {
      // Whatever was refused, nothing of it was stored.
      assert.deepEqual(await getJson(t.app, '/terms'), []);
      await t.close();
    });

    const rejects = async (body: unknown, expected: unknown[]) => {
      const response = await postJson(t.app, '/terms', body);
      assert.deepEqual(faultsOf(response), expected);
    };

    test('reports every missing required field, without an input', async () => {
      await rejects({}, [
        { loc: ['body', 'id'], msg: 'field required', type: 'value_error.missing' },
        { loc: ['body', 'term'], msg: 'field required', type: 'value_error.missing' },
        { loc: ['body', 'definition'], msg: 'field required', type: 'value_error.missing' },
        { loc: ['body', 'category'], msg: 'field required', type: 'value_error.missing' },
      ]);
      const { term: _, ...withoutTerm } = sampleTerm(1);
      await rejects(withoutTerm, [
        { loc: ['body', 'term'], msg: 'field required', type: 'value_error.missing' },
      ]);
    });

    test('rejects an id that is not a JSON integer, without coercion', async () => {
      for (const id of ['5', true, false, 1.5, null, [], {}, '', 'abc', -0.5]) {
        await rejects(sampleTerm(0, { id }), [integerFault(['body', 'id'], id)]);
      }
    });

    test('rejects ids beyond ±(2^53 − 1)', async () => {
      for (const id of [MAX_ID + 1, -(MAX_ID + 1), 1e20, -1e300]) {
        await rejects(sampleTerm(0, { id }), [integerFault(['body', 'id'], id)]);
      }
    });

    test('rejects each bad see_also item at its index, in the same vocabulary as id', async () => {
      await rejects(
        sampleTerm(1, { see_also: [1, '5', true, 1.5, null, 2 ** 53, -(2 ** 53), 7] }),
        [
          integerFault(['body', 'see_also', 1], '5'),
          integerFault(['body', 'see_also', 2], true),
          integerFault(['body', 'see_also', 3], 1.5),
          integerFault(['body', 'see_also', 4], null),
          integerFault(['body', 'see_also', 5], 2 ** 53),
          integerFault(['body', 'see_also', 6], -(2 ** 53)),
        ],
      );
    });

    test('rejects a see_also that is not a list', async () => {
      for (const seeAlso of ['1,2', 5, {}, true]) {
        await rejects(sampleTerm(1, { see_also: seeAlso }), [
          {
            loc: ['body', 'see_also'],
            msg: 'value is not a valid list',
            type: 'type_error.list',
            input: seeAlso,
          },
        ]);
      }
    });

    test('rejects a see_also of more than 100 items once, as a whole list', async () => {
      const seeAlso = Array.from({ length: 101 }, (_, i) => i);
      await rejects(sampleTerm(1, { see_also: seeAlso }), [
        {
          loc: ['body', 'see_also'],
          msg: 'ensure this value has at most 100 items',
          type: 'value_error.list.max_items',
          input: seeAlso,
        },
      ]);
      const badTail = [...seeAlso, 'x', 'y'];
      const response = await postJson(t.app, '/terms', sampleTerm(1, { see_also: badTail }));
      assert.deepEqual(
        faultsOf(response).map((f) => (f as { type: string }).type),
        ['value_error.list.max_items'],
      );
    });

    test('rejects term and definition that are not strings', async () => {
      for (const value of [5, true, null, ['a'], { a: 1 }]) {
        await rejects(sampleTerm(1, { term: value, definition: value }), [
          { loc: ['body', 'term'], msg: 'str type expected', type: 'type_error.str', input: value },
          {
            loc: ['body', 'definition'],
            msg: 'str type expected',
            type: 'type_error.str',
            input: value,
          },
        ]);
      }
    });

    test('rejects empty and blank (whitespace-only) term and definition', async () => {
      for (const value of ['', ' ', '   ', '\t\n', '\u00a0', '\u2003\u3000']) {
        await rejects(sampleTerm(1, { term: value, definition: value }), [
          {
            loc: ['body', 'term'],
            msg: 'ensure this value has at least 1 characters',
            type: 'value_error.any_str.min_length',
            input: value,
          },
          {
            loc: ['body', 'definition'],
            msg: 'ensure this value has at least 1 characters',
            type: 'value_error.any_str.min_length',
            input: value,
          },
        ]);
      }
    });

    test('limits term to 200 and definition to 10,000 characters', async () => {
      const term = 'a'.repeat(201);
      const definition = 'd'.repeat(10_001);
      await rejects(sampleTerm(1, { term, definition }), [
        {
          loc: ['body', 'term'],
          msg: 'ensure this value has at most 200 characters',
          type: 'value_error.any_str.max_length',
          input: term,
        },
        {
          loc: ['body', 'definition'],
          msg: 'ensure this value has at most 10000 characters',
          type: 'value_error.any_str.max_length',
          input: definition,
        },
      ]);
    });

    test('counts the length limits in characters, an astral character counting once', async () => {
      // 201 emoji are 402 UTF-16 code units but 201 characters: too long.
      const term = '😀'.repeat(201);
      const definition = '𝄞'.repeat(10_001);
      await rejects(sampleTerm(1, { term, definition }), [
        {
          loc: ['body', 'term'],
          msg: 'ensure this value has at most 200 characters',
          type: 'value_error.any_str.max_length',
          input: term,
        },
        {
          loc: ['body', 'definition'],
          msg: 'ensure this value has at most 10000 characters',
          type: 'value_error.any_str.max_length',
          input: definition,
        },
      ]);
    });

    test('rejects a category outside the set, case-sensitively, listing the permitted values', async () => {
      for (const category of ['databases', 'Backend', 'BACKEND', '', ' backend', 'docs_as_code']) {
        await rejects(sampleTerm(1, { category }), [
          { loc: ['body', 'category'], msg: ENUM_MSG, type: 'type_error.enum', input: category },
        ]);
      }
      await rejects(sampleTerm(1, { category: 3 }), [
        { loc: ['body', 'category'], msg: 'str type expected', type: 'type_error.str', input: 3 },
      ]);
    });

    test('rejects a lone UTF-16 surrogate, which could not be stored and returned unchanged', async () => {
      const response = await postRaw(
        t.app,
        '/terms',
        '{"id":1,"term":"a\\ud800","definition":"\\udfff b","category":"backend"}',
      );
      assert.deepEqual(faultsOf(response), [
        {
          loc: ['body', 'term'],
          msg: 'string is not well-formed Unicode (it holds a lone surrogate)',
          type: 'value_error.str.unicode',
          input: 'a\ud800',
        },
        {
          loc: ['body', 'definition'],
          msg: 'string is not well-formed Unicode (it holds a lone surrogate)',
          type: 'value_error.str.unicode',
          input: '\udfff b',
        },
      ]);
    });

    test('reports every fault of a body at once, in field order', async () => {
      await rejects(
        { id: '5', term: ' ', definition: 7, category: 'x', see_also: [1, 'two'], extra: 1 },
        [
          integerFault(['body', 'id'], '5'),
          {
            loc: ['body', 'term'],
            msg: 'ensure this value has at least 1 characters',
            type: 'value_error.any_str.min_length',
            input: ' ',
          },
          {
            loc: ['body', 'definition'],
            msg: 'str type expected',
            type: 'type_error.str',
            input: 7,
          },
          { loc: ['body', 'category'], msg: ENUM_MSG, type: 'type_error.enum', input: 'x' },
          integerFault(['body', 'see_also', 1], 'two'),
        ],
      );
    });

    test('lists missing fields first, then the other faults in field order', async () => {
      await rejects({ id: '5', term: ' ', category: 'web' }, [
        { loc: ['body', 'definition'], msg: 'field required', type: 'value_error.missing' },
        integerFault(['body', 'id'], '5'),
        {
          loc: ['body', 'term'],
          msg: 'ensure this value has at least 1 characters',
          type: 'value_error.any_str.min_length',
          input: ' ',
        },
        { loc: ['body', 'category'], msg: ENUM_MSG, type: 'type_error.enum', input: 'web' },
      ]);
    });

    test('rejects a body that is not an object', async () => {
      for (const body of [[], [sampleTerm(1)], 'term', 5, true]) {
        await rejects(body, [
          { loc: ['body'], msg: 'value is not a valid dict', type: 'type_error.dict', input: body },
        ]);
      }
    });

    test('treats a missing body, an empty body and a JSON null as a missing body', async () => {
      const missing = [{ loc: ['body'], msg: 'field required', type: 'value_error.missing' }];
      const noBody = await t.app.inject({ method: 'POST', url: '/terms' });
      assert.deepEqual(faultsOf(noBody), missing);
      assert.deepEqual(faultsOf(await postRaw(t.app, '/terms', '')), missing);
      assert.deepEqual(faultsOf(await postRaw(t.app, '/terms', 'null')), missing);
    });

    test('answers malformed JSON with value_error.jsondecode at the character position', async () => {
      const trailingComma = await postRaw(t.app, '/terms', '{"id":1,}');
      assert.deepEqual(faultsOf(trailingComma), [
        {
          loc: ['body', 8],
          msg: 'JSON decode error: Expected double-quoted property name',
          type: 'value_error.jsondecode',
        },
      ]);
      const truncated = await postRaw(t.app, '/terms', '{"id": 1, "term": "a');
      assert.deepEqual(faultsOf(truncated), [
        {
          loc: ['body', 20],
          msg: 'JSON decode error: Unterminated string',
          type: 'value_error.jsondecode',
        },
      ]);
      for (const text of ["{'id': 1}", '{"id": 01}', 'NaN', '   ', '{"a":1}}', '[']) {
        const [fault] = faultsOf(await postRaw(t.app, '/terms', text)) as {
          loc: unknown[];
          msg: string;
          type: string;
        }[];
        assert.equal(fault?.type, 'value_error.jsondecode', text);
        assert.equal(fault?.loc[0], 'body');
        assert.match(fault?.msg ?? '', /^JSON decode error: /);
      }
    });

    test('answers a body that is not valid UTF-8 with value_error.jsondecode at ["body"]', async () => {
      const bytes = Buffer.concat([
        Buffer.from('{"id":1,"term":"'),
        Buffer.from([0xc3, 0x28, 0xff]),
        Buffer.from('","definition":"d","category":"backend"}'),
      ]);
      assert.deepEqual(faultsOf(await postRaw(t.app, '/terms', bytes)), [
        {
          loc: ['body'],
          msg: 'JSON decode error: the body is not valid UTF-8',
          type: 'value_error.jsondecode',
        },
      ]);
    });

    test('refuses input nested deeper than 32 levels before parsing it, at the offending bracket', async () => {
      const prefix = '{"id":1,"term":"t","definition":"d","category":"backend","see_also":';
      const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
      assert.deepEqual(faultsOf(await postRaw(t.app, '/terms', `${prefix}${deep}}`)), [
        {
          // The body object is level 1, so the 32nd bracket of see_also is level 33.
          loc: ['body', prefix.length + 31],
          msg: 'JSON decode error: the JSON is nested deeper than 32 levels',
          type: 'value_error.jsondecode',
        },
      ]);
      const allowed = `${'['.repeat(31)}${']'.repeat(31)}`;
      const [fault] = faultsOf(await postRaw(t.app, '/terms', `${prefix}${allowed}}`)) as {
        loc: unknown;
        msg: unknown;
        type: unknown;
      }[];
      assert.deepEqual(
        { loc: fault?.loc, msg: fault?.msg, type: fault?.type },
        {
          loc: ['body', 'see_also', 0],
          msg: 'value is not a valid integer',
          type: 'type_error.integer',
        },
      );
      const unclosed = await postRaw(t.app, '/terms', '{"a":'.repeat(100_000));
      assert.equal(faultsOf(unclosed).length, 1);
    });
  });
}
