import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sampleTerm } from '../helpers/app.ts';
import { tempDir } from '../helpers/backends.ts';
import { type ListeningApp, listenApp } from '../helpers/listening-app.ts';
import { runCli } from '../helpers/run-cli.ts';

/**
 * `glossary import` and the file it reads: every complaint names the spot in the file a person
 * opens to fix it (a CSV line, a JSON index and id, a JSON line and column), in one line. What
 * is said about the file does not depend on the store, so one store is enough here.
 */

const BAD_CATEGORY =
  "category: value is not a valid enumeration member; permitted: 'frontend', 'backend', 'devops', 'docs-as-code'";

function writeTemp(name: string, content: string): string {
  const file = path.join(tempDir('glossary-import-files-'), name);
  fs.writeFileSync(file, content);
  return file;
}

describe('glossary import: places in the file', () => {
  let app: ListeningApp;
  before(async () => {
    app = await listenApp();
  });
  after(() => app.close());

  const run = (file: string, ...flags: string[]) =>
    runCli(['import', file, '--url', app.url, ...flags]);

  test('a CSV value error names the line its record starts on, past multi-line quoted definitions', async () => {
    const csv = [
      'id,term,definition,category',
      '101,Multi,"A definition',
      'over three lines, with ""quotes""',
      'and a comma.",backend',
      '',
      '102,Bad,"Two',
      'lines.",web',
      '103,Fine,Fine.,devops',
      '101,Again,Repeated id.,devops',
    ].join('\r\n');
    const file = writeTemp('terms.csv', `\uFEFF${csv}\r\n`);
    const result = await run(file, '--update');
    assert.equal(result.code, 1, result.stderr);
    assert.equal(
      result.stdout,
      [
        'created 101',
        `rejected line 6 (id 102): ${BAD_CATEGORY}`,
        'created 103',
        'rejected line 9 (id 101): Duplicate ID 101 in the file (line 2).',
        `${file}: 2 created, 2 rejected (4 terms)`,
        '',
      ].join('\n'),
    );
    const json = await run(file, '--update', '--json');
    assert.deepEqual(JSON.parse(json.stdout)[1], {
      id: 102,
      action: 'rejected',
      line: 6,
      detail: BAD_CATEGORY,
    });
  });

  test('a JSON value error names the item by its index and id, one line each', async () => {
    const file = writeTemp(
      'terms.json',
      JSON.stringify([sampleTerm(201), sampleTerm(202, { category: 'web' }), { term: 'No id' }]),
    );
    const result = await run(file);
    assert.equal(result.code, 1);
    const lines = result.stdout.split('\n');
    assert.equal(lines[1], `rejected item 1 (id 202): ${BAD_CATEGORY}`);
    assert.match(lines[2] ?? '', /^rejected item 2: .*field required/);
  });

  for (const [name, content, message] of [
    [
      'syntax.json',
      '[\n  {"id": 1, "term": "A", "definition": "B", "category": "backend"},\n  {"id": 2 "term": "C"}\n]\n',
      /^glossary: .*syntax\.json is not valid JSON at line 3, column 12: Expected ',' or '}' after property value\n$/,
    ],
    [
      'cut.json',
      '[\n  {"id": 1,\n',
      /^glossary: .*cut\.json is not valid JSON at line 2, column 12: /,
    ],
    ['empty.json', '', /^glossary: .*empty\.json is empty: there are no terms to import\n$/],
    [
      'blank.csv',
      '\uFEFF \r\n\n',
      /^glossary: .*blank\.csv is empty: there are no terms to import\n$/,
    ],
    [
      'semicolons.csv',
      'id;term;definition;category;see_also\n1;Cache;A store, close by.;backend;\n',
      /^glossary: .*semicolons\.csv: the columns are separated by semicolons, not commas; save it as comma-separated CSV \(the header must be id,term,definition,category,see_also,aliases,avoid\)\n$/,
    ],
    [
      'tabs.csv',
      'id\tterm\tdefinition\tcategory\n1\tCache\tA store.\tbackend\n',
      /^glossary: .*tabs\.csv: the columns are separated by tabs, not commas; /,
    ],
  ] as const) {
    test(`${name}: one clear line on stderr, exit status 1, nothing sent`, async () => {
      const before = (await app.app.inject({ url: '/terms' })).json() as unknown[];
      const result = await run(writeTemp(name, content));
      assert.equal(result.code, 1);
      assert.match(result.stderr, message);
      assert.equal(result.stdout, '');
      assert.deepEqual((await app.app.inject({ url: '/terms' })).json(), before);
    });
  }

  test('empty standard input is an empty file, not an empty glossary', async () => {
    const result = await runCli(['import', '-', '--url', app.url], { stdin: '' });
    assert.equal(result.code, 1);
    assert.equal(result.stderr, 'glossary: - is empty: there are no terms to import\n');
  });

  test('--json: a run stopped by an error still leaves a JSON array on stdout, the error on stderr', async () => {
    const server = net.createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as net.AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const file = writeTemp('terms.json', JSON.stringify([sampleTerm(301)]));
    const url = `http://127.0.0.1:${port}`;
    const result = await runCli(['import', file, '--url', url, '--update', '--json']);
    assert.equal(result.code, 1);
    assert.deepEqual(JSON.parse(result.stdout), []);
    assert.equal(
      result.stderr,
      `glossary: cannot reach the glossary service at ${url} (ECONNREFUSED)\n`,
    );
  });

  test('glossary import --help shows examples, the sync among them', async () => {
    const help = await runCli(['import', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /\nExamples:\n {2}glossary import terms\.csv /);
    assert.match(help.stdout, /glossary import glossary\.json --update --dry-run/);
    assert.match(help.stdout, /--prune/);
    assert.match(help.stdout, /--json/);
  });
});
