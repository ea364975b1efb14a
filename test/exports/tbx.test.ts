import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { oneLine } from '../../src/glossary/exports/names.ts';
import { entryId, tbxFormat, termType } from '../../src/glossary/exports/tbx.ts';
import { tbxV2Format } from '../../src/glossary/exports/tbx-v2.ts';
import type { Term } from '../../src/glossary/term.ts';
import { ALL_TERMS, OWNERSHIP_TERMS, PLAIN_TERMS, sourceOf } from '../fixtures/hostile-terms.ts';
import { renderFile, run, tempDir } from './export-helpers.ts';

const SCHEMA = path.join(import.meta.dirname, '../fixtures/tbx-core.rng');

/** A glossary as a team has it: acronyms, abbreviations, names to avoid, see-also in and out of the file, a duplicated id. */
const REALISTIC: readonly Term[] = [
  ...PLAIN_TERMS,
  {
    id: 3,
    term: 'Application programming interface',
    definition: 'How programs talk to the service.',
    category: 'backend',
    see_also: [1, 2, 2, 404],
    aliases: ['API', 'approx.', 'web API'],
    avoid: ['A.P.I'],
  },
  {
    id: 4,
    term: 'Internationalization',
    definition: 'Making text translatable.',
    category: 'frontend',
    see_also: [3],
    aliases: ['i18n', 'I18N'],
  },
  ...OWNERSHIP_TERMS,
];

/** A name as the TBX files write it: on one line, XML non-characters and lone surrogates (of these fixtures) as U+FFFD. */
function written(name: string): string {
  return oneLine(name).replace(/\ud800|\udc00|\ufffe|\uffff/gu, '\ufffd');
}

/** Characters XML 1.0 cannot hold, in every field a term has. */
const NOT_XML: Term = {
  id: 30,
  term: 'Lone \ud800 surrogate\u0001 and \uffff',
  definition: 'NUL\u0000, ESC\u001b, a trailing low \udc00, NEL\u0085here and U+FFFE\ufffe.',
  category: 'backend',
  see_also: [],
  aliases: ['C1\u0080\u009f control'],
  avoid: ['bell\u0007'],
};

async function write(dir: string, name: string, text: string): Promise<string> {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

async function validate(file: string) {
  return run('xmllint', ['--noout', '--relaxng', SCHEMA, file]);
}

/** An XPath step for a TBX element whatever its namespace (xmllint's --xpath has no prefixes). */
function xpath(steps: string): string {
  return steps.replace(
    /(^|[/[])([a-zA-Z]+)(?=[[/=\])]|$)/g,
    (_, before: string, name: string) => `${before}*[local-name()='${name}']`,
  );
}

async function evaluate(file: string, expression: string): Promise<string> {
  const result = await run('xmllint', ['--xpath', expression, file]);
  assert.equal(result.code, 0, `${expression}: ${result.stderr}`);
  return result.stdout.trim();
}

test('every tbx export is valid against the TBX v3 core schema: a realistic glossary, an empty one, the hostile fixture, XML-forbidden characters', async (t) => {
  const dir = tempDir(t, 'tbx-');
  const cases: [string, readonly Term[]][] = [
    ['realistic', REALISTIC],
    ['empty', []],
    ['hostile', ALL_TERMS],
    ['not-xml', [NOT_XML, ...PLAIN_TERMS]],
  ];
  for (const [name, terms] of cases) {
    const file = await write(dir, `${name}.tbx`, await renderFile(tbxFormat, terms));
    const result = await validate(file);
    assert.equal(result.code, 0, `${name}: ${result.stderr}`);
    assert.match(result.stderr, /validates/);
  }
});

test('the tbx export carries names, aliases, names to avoid, category, definition and cross references where TBX-Basic puts them', async (t) => {
  const dir = tempDir(t, 'tbx-');
  const file = await write(dir, 'glossary.tbx', await renderFile(tbxFormat, REALISTIC));
  const text = fs.readFileSync(file, 'utf8');
  assert.ok(
    text.startsWith(
      '<?xml version="1.0" encoding="UTF-8"?>\n<?xml-model href="https://raw.githubusercontent.com/LTAC-Global/TBX-Basic_dialect/master/DCA/TBXcoreStructV03_TBX-Basic_integrated.rng"',
    ),
  );
  assert.match(
    text,
    /\n<tbx type="TBX-Basic" style="dca" xml:lang="en" xmlns="urn:iso:std:iso:30042:ed-2">\n/,
  );

  const ids = await evaluate(file, xpath('//conceptEntry/@id'));
  assert.deepEqual(
    [...ids.matchAll(/id="([^"]+)"/g)].map((match) => match[1]),
    ['term-1', 'term-2', 'term-3', 'term-4', 'term-20', 'term-21', 'term-20-2', 'term-22'],
    'one entry per term, a later duplicate id made unique',
  );

  const entry = (id: string) => xpath(`//conceptEntry[@id='${id}']`);
  const status = (id: string, name: string, type: string) =>
    evaluate(
      file,
      `string(${entry(id)}/${xpath(`langSec[@xml:lang='en']/termSec[term='${name}']/termNote`)}[@type='${type}'])`,
    );
  assert.equal(
    await status('term-1', 'Kubernetes', 'administrativeStatus'),
    'preferredTerm-admn-sts',
  );
  assert.equal(await status('term-1', 'K8s', 'administrativeStatus'), 'admittedTerm-admn-sts');
  assert.equal(await status('term-1', 'K8s', 'termType'), 'abbreviation');
  assert.equal(
    await status('term-1', 'Kubernates', 'administrativeStatus'),
    'deprecatedTerm-admn-sts',
  );
  assert.equal(await status('term-3', 'API', 'termType'), 'acronym');
  assert.equal(await status('term-3', 'approx.', 'termType'), 'abbreviation');
  assert.equal(
    await status('term-3', 'web API', 'termType'),
    '',
    'no termType when not clearly one',
  );
  assert.equal(await status('term-3', 'A.P.I', 'administrativeStatus'), 'deprecatedTerm-admn-sts');
  assert.equal(await status('term-4', 'I18N', 'termType'), 'abbreviation');
  assert.equal(
    await evaluate(file, `count(${entry('term-1')}/${xpath('langSec/termSec')})`),
    '4',
    'a termSec for the name, each alias, each name to avoid',
  );

  assert.equal(
    await evaluate(file, `string(${entry('term-2')}/${xpath('descrip')}[@type='subjectField'])`),
    'backend',
  );
  assert.equal(
    await evaluate(
      file,
      `string(${entry('term-2')}/${xpath('langSec/descrip')}[@type='definition'])`,
    ),
    'An HTTP callback.\nThe service calls it when a term changes.',
  );
  const refs = await evaluate(
    file,
    `${entry('term-3')}/${xpath('ref')}[@type='crossReference']/@target`,
  );
  assert.deepEqual(
    [...refs.matchAll(/target="([^"]+)"/g)].map((match) => match[1]),
    ['term-1', 'term-2'],
    'see-also ids in the file, each once; 404 is not in the file',
  );
  assert.equal(
    await evaluate(file, `string(${entry('term-21')}/${xpath('ref')}[@target='term-20'])`),
    'Cache',
    'a reference to a duplicated id points at its earliest term',
  );
  assert.equal(await evaluate(file, `count(${xpath('//ref')}[@target='term-1'])`), '2');
});

test('the tbx export of the hostile fixture and of XML-forbidden characters reads back as the names on one line', async (t) => {
  const dir = tempDir(t, 'tbx-');
  const terms = [...ALL_TERMS, NOT_XML];
  const file = await write(dir, 'glossary.tbx', await renderFile(tbxFormat, terms));
  // Python's own XML parser (expat), not a regular expression, reads it.
  const script = `
import json, sys, xml.etree.ElementTree as ET
ns = {'t': 'urn:iso:std:iso:30042:ed-2'}
root = ET.parse(sys.argv[1]).getroot()
print(json.dumps([
  {'id': e.get('id'), 'names': [t.text for t in e.iterfind('t:langSec/t:termSec/t:term', ns)],
   'definition': e.find('t:langSec/t:descrip[@type="definition"]', ns).text}
  for e in root.iterfind('t:text/t:body/t:conceptEntry', ns)]))
`;
  const result = await run('/usr/bin/python3', ['-c', script, file]);
  assert.equal(result.code, 0, result.stderr);
  const entries = JSON.parse(result.stdout) as {
    id: string;
    names: string[];
    definition: string;
  }[];
  assert.equal(entries.length, terms.length);
  for (const [index, term] of ALL_TERMS.entries()) {
    const expected = [term.term, ...(term.aliases ?? []), ...(term.avoid ?? [])].map(oneLine);
    assert.deepEqual(entries[index]?.names, [...new Set(expected)], `names of term ${term.id}`);
  }
  assert.equal(entries.find((entry) => entry.id === 'term-minus-7')?.names[0], 'Negative id');
  assert.equal(entries[2]?.definition.includes('<script>alert(1)</script>'), true);
  assert.equal(
    entries[3]?.definition,
    'Tabs here, a carriage return\nand a vertical\ntab, a NUL  and DEL .',
    'CR LF and VT end lines, other controls are spaces',
  );
  const last = entries.at(-1);
  assert.deepEqual(last?.names, ['Lone \ufffd surrogate and \ufffd', 'C1 control', 'bell']);
  assert.equal(last?.definition, 'NUL , ESC , a trailing low \ufffd, NEL\nhere and U+FFFE\ufffd.');
});

test('the TBX core schema is not vacuous: a broken tbx file fails it', async (t) => {
  const dir = tempDir(t, 'tbx-');
  const good = await renderFile(tbxFormat, REALISTIC);
  const breakages: [string, (text: string) => string][] = [
    [
      'a cross reference to an id not in the file',
      (s) => s.replace('target="term-2"', 'target="term-99"'),
    ],
    ['two entries with one id', (s) => s.replace('id="term-20-2"', 'id="term-20"')],
    ['an id that is not an NCName', (s) => s.replaceAll('"term-4"', '"4"')],
    ['a langSec without xml:lang', (s) => s.replace('<langSec xml:lang="en">', '<langSec>')],
    ['a termSec without its term', (s) => s.replace('<term>Webhook</term>', '')],
    ['an unknown administrative status', (s) => s.replace('preferredTerm-admn-sts', 'preferred')],
    ['an unknown term type', (s) => s.replace('>acronym<', '>initialism<')],
    [
      'a subject field in the langSec',
      (s) => s.replace('type="definition"', 'type="subjectField"'),
    ],
    [
      'a definition in a termSec',
      (s) => s.replace('</term>', '</term><descrip type="definition">x</descrip>'),
    ],
    ['the TBX v2 namespace-less root', (s) => s.replace(' xmlns="urn:iso:std:iso:30042:ed-2"', '')],
    ['no style', (s) => s.replace(' style="dca"', '')],
    ['an empty body', (s) => s.replace(/<body>[\s\S]*<\/body>/, '<body></body>')],
  ];
  for (const [name, breakIt] of breakages) {
    const broken = breakIt(good);
    assert.notEqual(broken, good, `${name}: the breakage applies`);
    const result = await validate(await write(dir, 'broken.tbx', broken));
    assert.notEqual(result.code, 0, `${name} fails the schema`);
    assert.match(result.stderr, /fails to validate/, name);
  }
});

test('the tbx export streams: the source is read twice, the entries written a chunk at a time', async () => {
  let reads = 0;
  const source = sourceOf(ALL_TERMS, 4);
  const counting = () => {
    reads += 1;
    return source();
  };
  const pieces: string[] = [];
  for await (const piece of tbxFormat.render(counting)) pieces.push(piece);
  assert.equal(reads, 2);
  assert.equal(
    pieces.length,
    2 + Math.ceil(ALL_TERMS.length / 4) + 1,
    'head, body, a piece per chunk, tail',
  );
  assert.equal(
    await renderFile(tbxFormat, []),
    (await renderFile(tbxFormat, PLAIN_TERMS)).replace(
      / {2}<text>[\s\S]*<\/text>\n/,
      '  <text/>\n',
    ),
    'an empty glossary is the same file with a text and no body',
  );
});

test('termType marks an alias as an acronym or abbreviation only where it clearly is one; ids are NCNames', () => {
  const name = 'Application programming interface';
  assert.equal(termType('API', name), 'acronym');
  assert.equal(termType('HTTP2', name), 'acronym');
  assert.equal(termType('K8s', 'Kubernetes'), 'abbreviation');
  assert.equal(termType('a11y', 'accessibility'), 'abbreviation');
  assert.equal(termType('approx.', 'approximately'), 'abbreviation');
  assert.equal(termType('API', 'API'), undefined, 'not shorter than the name');
  assert.equal(termType('42', name), undefined, 'digits only');
  assert.equal(termType('web API', name), undefined);
  assert.equal(termType('Cache', name), undefined);
  assert.equal(termType('yes', name), undefined);
  assert.equal(entryId(42), 'term-42');
  assert.equal(entryId(0), 'term-0');
  assert.equal(entryId(-5), 'term-minus-5');
});

test('Translate Toolkit reads every term of the tbx-v2 export back, hostile names too', async (t) => {
  const dir = tempDir(t, 'tbx-v2-');
  const terms = [...REALISTIC, ...ALL_TERMS.slice(PLAIN_TERMS.length), NOT_XML];
  const script = `
import json, sys
from translate.storage import tbx
store = tbx.tbxfile.parsefile(sys.argv[1])
print(json.dumps([
  {'id': unit.getid(), 'source': unit.source,
   'terms': [node.text for node in unit.xmlelement.iter('term')],
   'notes': unit.getnotes('definition')}
  for unit in store.units]))
`;
  for (const [name, list] of [
    ['empty', []],
    ['glossary', terms],
  ] as const) {
    const file = await write(dir, `${name}.tbx`, await renderFile(tbxV2Format, list));
    const wellFormed = await run('xmllint', ['--noout', file]);
    assert.equal(wellFormed.code, 0, wellFormed.stderr);
    assert.equal(wellFormed.stderr, '');
    const result = await run('/usr/bin/python3', ['-c', script, file]);
    assert.equal(result.code, 0, result.stderr);
    const units = JSON.parse(result.stdout) as {
      id: string;
      source: string;
      terms: string[];
      notes: string;
    }[];
    assert.equal(units.length, list.length, `${name}: one unit per term`);
    for (const [index, term] of list.entries()) {
      const unit = units[index];
      const names = [term.term, ...(term.aliases ?? []), ...(term.avoid ?? [])].map(written);
      assert.equal(unit?.source, written(term.term), `term ${term.id} is a unit with its name`);
      assert.deepEqual(unit?.terms, [...new Set(names)], `every name of term ${term.id}`);
    }
  }
  const text = await renderFile(tbxV2Format, PLAIN_TERMS);
  assert.match(
    text,
    /^<\?xml version="1.0" encoding="UTF-8"\?>\n<martif type="TBX" xml:lang="en">\n/,
  );
  assert.ok(
    text.includes(
      [
        '      <termEntry id="term-1">',
        '        <descrip type="subjectField">devops</descrip>',
        '        <ref type="crossReference" target="term-2">Webhook</ref>',
        '        <langSet xml:lang="en">',
        '          <descrip type="definition">An open-source system for running containers. It schedules them on nodes.</descrip>',
        '          <tig>',
        '            <term>Kubernetes</term>',
        '            <termNote type="administrativeStatus">preferredTerm-admn-sts</termNote>',
        '          </tig>',
        '          <tig>',
        '            <term>K8s</term>',
        '            <termNote type="administrativeStatus">admittedTerm-admn-sts</termNote>',
        '            <termNote type="termType">abbreviation</termNote>',
        '          </tig>',
        '          <tig>',
        '            <term>Kubernates</term>',
        '            <termNote type="administrativeStatus">deprecatedTerm-admn-sts</termNote>',
        '          </tig>',
      ].join('\n'),
    ),
  );
});
