import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { maskAsciidoc } from '../../src/lint/markup/asciidoc.ts';
import { HIDDEN } from '../../src/lint/markup/mask.ts';
import { maskPlain } from '../../src/lint/markup/plain.ts';
import { maskRst } from '../../src/lint/markup/rst.ts';
import { run, tempDir } from '../exports/export-helpers.ts';
import { assertMaskOf, fixture, kept } from './markup-helpers.ts';

/**
 * What of a reStructuredText, AsciiDoc or text file is prose. The fixtures put "web hook" in
 * prose and in every construct that is not; each test names the places where it must survive,
 * and the real parsers of each markup (docutils through Sphinx, Asciidoctor) must see as much
 * prose as the reader does.
 */

/** Counts "web hook" in the prose of a rendered document, by a script of Python's own parsers. */
const COUNT_PROSE = String.raw`
import re, sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
NAME = re.compile(r'(?<![^\W_])web\s+hook(?![^\W_])', re.I)
kind, file = sys.argv[1], sys.argv[2]
if kind == 'doctree':
    # Sphinx's doctree: text outside literal, code and target nodes.
    SKIP = {'literal_block', 'literal', 'literal_strong', 'literal_emphasis', 'comment', 'target',
            'raw', 'substitution_definition', 'doctest_block', 'system_message', 'problematic',
            'math', 'math_block', 'image', 'footnote_reference', 'label'}
    def texts(el):
        out = [el.text or '']
        for child in el:
            out.append(''.join(texts(child)) if child.tag not in SKIP else '\0')
            out.append(child.tail or '')
        return out
    print(len(NAME.findall(''.join(texts(ET.parse(file).getroot())))))
else:
    # Asciidoctor's HTML body (rendered without a table of contents): text outside pre, code, kbd.
    class Prose(HTMLParser):
        def __init__(self):
            super().__init__(); self.skip = 0; self.parts = []
        def handle_starttag(self, tag, attrs):
            if tag in ('pre', 'code', 'kbd'): self.skip += 1
            self.parts.append('\0')
        def handle_endtag(self, tag):
            if tag in ('pre', 'code', 'kbd'): self.skip -= 1
            self.parts.append('\0')
        def handle_data(self, data):
            if not self.skip: self.parts.append(data)
    html = open(file, encoding='utf-8').read()
    parser = Prose(); parser.feed(html[html.index('<body'):])
    print(len(NAME.findall(''.join(parser.parts))))
`;

async function countProse(kind: 'doctree' | 'html', file: string): Promise<number> {
  const result = await run('/usr/bin/python3', ['-c', COUNT_PROSE, kind, file]);
  assert.equal(result.code, 0, result.stderr);
  return Number(result.stdout.trim());
}

describe('reStructuredText prose', () => {
  const source = fixture('sample.rst');

  test('paragraphs, titles, lists, link texts, prose roles, admonitions, footnotes, fields, tables and line blocks are prose; literals, code roles, targets, directives, comments and doctests are not', () => {
    assert.deepEqual(kept(maskRst, source), [
      '2:1',
      '7:3',
      '7:64',
      '8:13',
      '8:65',
      '11:11',
      '14:15',
      '17:12',
      '18:18',
      '19:14',
      '22:13',
      '24:13',
      '29:16',
      '58:29',
      '63:10',
      '64:29',
      '69:3',
      '69:16',
      '75:1',
      '75:14',
      '78:23',
      '80:6',
    ]);
  });

  test('Sphinx (docutils) reads as much prose in the file as the reader keeps, named references aside', async (t) => {
    const dir = tempDir(t, 'lint-sphinx-');
    fs.mkdirSync(path.join(dir, 'src'));
    fs.writeFileSync(path.join(dir, 'src', 'index.rst'), source);
    fs.writeFileSync(path.join(dir, 'src', 'conf.py'), "project = 'lint'\n");
    fs.writeFileSync(path.join(dir, 'src', 'web_hook.py'), 'hook = 1\n');
    const built = await run('sphinx-build', ['-b', 'xml', '-q', 'src', 'out'], { cwd: dir });
    assert.equal(built.code, 0, built.stderr);
    const prose = await countProse('doctree', path.join(dir, 'out', 'index.xml'));
    // A reference by its target's name (`web hook`_ on line 17) is prose to docutils; its
    // text names the target, and the reader keeps it from --fix, which would break it.
    assert.equal(prose, kept(maskRst, source).length + 1);
  });
});

describe('AsciiDoc prose', () => {
  const source = fixture('sample.adoc');

  test('titles, paragraphs, lists, link texts, admonitions, examples, tables, sidebars and footnotes are prose; listings, literals, comments, passthroughs, attributes and directives are not', () => {
    assert.deepEqual(kept(maskAsciidoc, source), [
      '1:3',
      '6:3',
      '6:64',
      '7:12',
      '7:63',
      '10:14',
      '12:14',
      '14:18',
      '16:40',
      '16:77',
      '17:31',
      '17:96',
      '20:9',
      '22:4',
      '24:5',
      '60:9',
      '65:3',
      '66:5',
      '70:3',
      '73:1',
      '73:19',
      '75:6',
      '75:46',
    ]);
  });

  test('Asciidoctor reads as much prose as the reader keeps, passthroughs aside', async (t) => {
    const dir = tempDir(t, 'lint-asciidoctor-');
    fs.writeFileSync(path.join(dir, 'sample.adoc'), source);
    fs.writeFileSync(path.join(dir, 'web-hook.adoc'), 'Included.\n');
    const built = await run(
      'asciidoctor',
      ['-a', 'experimental', '-a', 'toc!', '-o', 'sample.html', 'sample.adoc'],
      {
        cwd: dir,
      },
    );
    assert.equal(built.code, 0, built.stderr);
    const prose = await countProse('html', path.join(dir, 'sample.html'));
    // Asciidoctor shows `+web hook+`, `pass:[web hook]` and the `++++` block's HTML as they are
    // written; they are literal text, left to the writer, and the reader does not read them.
    assert.equal(prose, kept(maskAsciidoc, source).length + 3);
  });
});

describe('plain text', () => {
  test('everything but web and e-mail addresses is prose', () => {
    const source =
      'A web hook; see https://example.com/web-hook, www.example.com/web-hook or web.hook@example.com.\n';
    assert.deepEqual(kept(maskPlain, source), ['1:3']);
    assert.ok(
      maskPlain(source).includes(`see ${HIDDEN.repeat('https://example.com/web-hook'.length)},`),
    );
  });
});

describe('any input', () => {
  const markupish = fc
    .array(
      fc.constantFrom(
        'web',
        ' hook',
        '\n',
        '\n\n',
        '`',
        '``',
        '::',
        '.. ',
        '.. note::',
        '.. code::',
        '----',
        '....',
        '++++',
        '////',
        '|===',
        '[source]',
        '= ',
        '== ',
        '* ',
        '<<',
        '>>',
        '[',
        ']',
        '{',
        '}',
        '|',
        ':role:',
        '+',
        '_',
        '   ',
        '\t',
        'https://x.y',
        'link:',
        'é',
        '\r\n',
        '\uD83C\uDF89',
      ),
      { maxLength: 60 },
    )
    .map((parts) => parts.join(''));

  test('every mask is as long as its source, and what it keeps is the source', () => {
    fc.assert(
      fc.property(markupish, (source) => {
        for (const mask of [maskRst(source), maskAsciidoc(source), maskPlain(source)])
          assertMaskOf(source, mask);
      }),
      { numRuns: 1000 },
    );
  });
});
