import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { isBlank } from '../../src/glossary/term.ts';
import { sampleTerm, startApp, type TestApp } from '../helpers/app.ts';
import { backends } from '../helpers/backends.ts';
import { faultsOf, getJson, postJson } from '../helpers/http.ts';

/**
 * A name or definition with no visible character is blank, like one of spaces: whitespace,
 * default-ignorable code points, format and control characters, and combining marks (with
 * nothing visible to combine with).
 */

/** What the testers sent (issue 27), alone and in company of one another and of spaces. */
const INVISIBLE = [
  '\u200b', // ZERO WIDTH SPACE
  '\ufeff', // ZERO WIDTH NO-BREAK SPACE (byte order mark)
  '\u2060', // WORD JOINER
  '\u3164', // HANGUL FILLER
  '\u0301', // COMBINING ACUTE ACCENT, alone
  '\u202e', // RIGHT-TO-LEFT OVERRIDE
];
const BLANK = [
  ...INVISIBLE,
  INVISIBLE.join(''),
  ` \u200b\t\ufeff\n`,
  '\u200d\ufe0f', // ZERO WIDTH JOINER, VARIATION SELECTOR-16
  '\u0301\u0308\u20dd', // marks, an enclosing one too, with no base
  ' \u0301', // a mark on a space
  '\u00ad\u034f\u115f\u1160\uffa0\u180e', // soft hyphen, CGJ, Hangul fillers, Mongolian separator
  '\u{e0041}\u{e007f}', // tag characters
  '\u0000\u0007\u007f', // controls
];
/** Visible text with the same characters among it: valid, and kept exactly. */
const VISIBLE = [
  'a\u200bb',
  '\ufeffByte order',
  'word\u2060joiner',
  '\u3164\uac00',
  'e\u0301',
  '\u202eevil',
  '\u{1f468}\u200d\u{1f469}',
  '\u2800', // BRAILLE PATTERN BLANK is a symbol, not a format character
];

const blankFault = (field: string, input: string) => ({
  loc: ['body', field],
  msg: 'ensure this value has at least 1 characters',
  type: 'value_error.any_str.min_length',
  input,
});

describe('isBlank', () => {
  test('every listed character, alone or together, is blank; with a visible one it is not', () => {
    for (const value of BLANK) assert.equal(isBlank(value), true, JSON.stringify(value));
    for (const value of VISIBLE) assert.equal(isBlank(value), false, JSON.stringify(value));
    assert.equal(isBlank(''), true);
  });

  test('invisible characters around a visible one never make it blank', () => {
    const invisible = fc.constantFrom(...[...BLANK.join('')], ' ', '\u3000', '\u2028');
    const visible = fc.constantFrom('a', 'Z', '7', '\u00e9', '\u4e2d', '\u{1f600}', '-', '.');
    fc.assert(
      fc.property(fc.array(invisible), fc.array(invisible), visible, (before, after, one) => {
        assert.equal(isBlank(before.join('') + after.join('')), true);
        assert.equal(isBlank(before.join('') + one + after.join('')), false);
      }),
    );
  });
});

for (const backend of backends()) {
  describe(`names with no visible character (${backend.name})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp(backend);
      assert.equal((await postJson(t.app, '/terms', sampleTerm(1))).statusCode, 201);
    });
    after(() => t.close());

    test('POST /terms refuses them as blank, in the term and the definition', async () => {
      for (const value of BLANK) {
        const response = await postJson(
          t.app,
          '/terms',
          sampleTerm(2, { term: value, definition: value }),
        );
        assert.equal(response.statusCode, 422, JSON.stringify(value));
        assert.deepEqual(faultsOf(response), [
          blankFault('term', value),
          blankFault('definition', value),
        ]);
      }
      assert.equal((await t.app.inject('/terms/2')).statusCode, 404);
    });

    test('POST /terms/bulk refuses each such item, and creates the others', async () => {
      const items = BLANK.map((value, i) => sampleTerm(10 + i, { term: value }));
      const response = await postJson(t.app, '/terms/bulk', [...items, sampleTerm(99)]);
      assert.equal(response.statusCode, 207);
      const results = response.json() as { status: string; detail?: string }[];
      assert.deepEqual(
        results.slice(0, BLANK.length).map((result) => result.detail),
        BLANK.map(() => 'term: ensure this value has at least 1 characters'),
      );
      assert.equal(results.at(-1)?.status, 'created');
    });

    test('PUT and PATCH refuse them: the merged term is judged whole', async () => {
      for (const value of BLANK) {
        const put = await t.app.inject({
          method: 'PUT',
          url: '/terms/1',
          payload: sampleTerm(1, { definition: value }),
        });
        assert.equal(put.statusCode, 422);
        assert.deepEqual(faultsOf(put), [blankFault('definition', value)]);
        const patch = await t.app.inject({
          method: 'PATCH',
          url: '/terms/1',
          headers: { 'content-type': 'application/merge-patch+json' },
          payload: JSON.stringify({ term: value }),
        });
        assert.equal(patch.statusCode, 422);
        assert.deepEqual(faultsOf(patch), [blankFault('term', value)]);
      }
      assert.deepEqual(await getJson(t.app, '/terms/1'), sampleTerm(1));
    });

    test('visible text with such characters among it is valid and kept exactly as sent', async () => {
      for (const [i, value] of VISIBLE.entries()) {
        const term = sampleTerm(200 + i, { term: value, definition: `${value}\u200b` });
        const response = await postJson(t.app, '/terms', term);
        assert.equal(response.statusCode, 201, JSON.stringify(value));
        assert.equal(response.body, JSON.stringify(term));
        assert.deepEqual(await getJson(t.app, `/terms/${200 + i}`), term);
      }
      const patched = await t.app.inject({
        method: 'PATCH',
        url: '/terms/200',
        headers: { 'content-type': 'application/merge-patch+json' },
        payload: JSON.stringify({ term: '\u200bX\u200b' }),
      });
      assert.equal(patched.statusCode, 200);
      assert.equal((patched.json() as { term: string }).term, '\u200bX\u200b');
    });
  });
}
