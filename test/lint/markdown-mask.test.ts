import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { maskMarkdown, maskMdx } from '../../src/lint/markup/markdown.ts';
import { HIDDEN } from '../../src/lint/markup/mask.ts';
import { assertMaskOf, fixture, kept } from './markup-helpers.ts';

/**
 * What of a Markdown or MDX file is prose. The fixtures put "web hook" in prose and in every
 * construct that is not; each test names the places where it must survive.
 */
describe('Markdown prose', () => {
  const source = fixture('sample.md');
  const where = kept(maskMarkdown, source);

  test('paragraphs, headings, emphasis, lists, tasks, table cells, link text and image descriptions are prose', () => {
    for (const at of [
      '6:13',
      '8:3',
      '8:65',
      '9:4',
      '9:45',
      '16:15',
      '18:18',
      '20:24',
      '24:21',
      '27:10',
      '28:2',
      '31:5',
      '55:8',
    ]) {
      assert.ok(where.includes(at), `${at} in ${where}`);
    }
  });

  test('a name broken across lines is read, through a block quote mark too', () => {
    assert.ok(where.includes('10:19'));
    assert.ok(where.includes('13:11'));
  });

  test('front matter, code (fenced, indented, inline), URLs, link targets and titles, labels, definitions, HTML and comments are not', () => {
    assert.deepEqual(where, [
      '6:13',
      '8:3',
      '8:65',
      '9:4',
      '9:45',
      '10:19',
      '13:11',
      '16:15',
      '18:18',
      '20:24',
      '24:21',
      '27:10',
      '28:2',
      '31:5',
      '33:11',
      '51:31',
      '55:8',
    ]);
  });

  test('escapes and entities are not prose, and end a word', () => {
    const masked = maskMarkdown('a \\*web hook\\* and AT&amp;T');
    assert.equal(
      masked,
      `a ${HIDDEN.repeat(2)}web hook${HIDDEN.repeat(2)} and AT${HIDDEN.repeat(5)}T`,
    );
  });

  test('a line of --- later in the file is a rule or a heading underline, not front matter', () => {
    assert.deepEqual(kept(maskMarkdown, 'Intro web hook.\n\n---\n\nweb hook\n---\n'), [
      '1:7',
      '5:1',
    ]);
  });
});

describe('MDX prose', () => {
  const source = fixture('sample.mdx');

  test('ESM, JSX tags and {expressions} are not prose; Markdown between JSX tags is', () => {
    assert.deepEqual(kept(maskMdx, source), ['7:25', '10:3', '13:32', '19:6']);
  });
});

describe('MDX is not CommonMark', () => {
  test('an indented line is prose, not code, and a comment in braces is hidden', () => {
    const source = 'Intro.\n\n    An indented web hook line.\n\n{/* web hook */} Last web hook.\n';
    assert.deepEqual(kept(maskMdx, source), ['3:17', '5:23']);
    assert.deepEqual(kept(maskMarkdown, source), ['5:5', '5:23']);
  });
});

describe('hostile input', () => {
  // Each of these made the parser quadratic (200,000 nested brackets: six minutes); they are
  // defused before parsing, and read whole. No time is asserted: the test runner's timeout is
  // what a regression would meet.
  test('brackets nested 200,000 deep and a run of 200,000 spaces are read, the prose in them found', () => {
    const nested = `${'['.repeat(200_000)}[web hook](https://example.com)${']'.repeat(200_000)}`;
    assert.deepEqual(kept(maskMarkdown, nested), ['1:200002']);
    const spaced = `a web${' '.repeat(200_000)}hook and a web hook`;
    assert.deepEqual(kept(maskMarkdown, spaced), ['1:3', '1:200017']);
  });

  test('defusing keeps indentation and hard breaks: a line of 40 leading spaces is still code', () => {
    const source = `Text web hook${' '.repeat(40)}\nnext\n\n${' '.repeat(40)}web hook in code\n`;
    assert.deepEqual(kept(maskMarkdown, source), ['1:6']);
  });
});

describe('any input', () => {
  const markdownish = fc
    .array(
      fc.constantFrom(
        'web',
        ' hook',
        '\n',
        '\n\n',
        '`',
        '```',
        '~~~',
        '> ',
        '- ',
        '1. ',
        '# ',
        '*',
        '_',
        '[',
        ']',
        '(',
        ')',
        '<',
        '>',
        '{',
        '}',
        '|',
        '---',
        '+++',
        '\\',
        '&amp;',
        'http://x.y',
        'import a',
        '<!--',
        '-->',
        '    ',
        '\t',
        'é',
        '\r\n',
        '\uD83C\uDF89',
      ),
      { maxLength: 60 },
    )
    .map((parts) => parts.join(''));

  test('the mask is as long as the source, and what it keeps is the source', () => {
    fc.assert(
      fc.property(markdownish, (source) => {
        for (const mask of [maskMarkdown(source), maskMdx(source)]) assertMaskOf(source, mask);
      }),
      { numRuns: 1000 },
    );
  });
});
