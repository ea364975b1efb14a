import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import AjvDraft04 from 'ajv-draft-04';
import { type ListeningApp, listenApp } from '../helpers/listening-app.ts';
import { runCli } from '../helpers/run-cli.ts';

/**
 * `glossary lint` as a docs repository's CI runs it: the real command in its own process, on
 * files in a folder, against a glossary from a JSON export or from a running service.
 */

const WEBHOOK = {
  id: 42,
  term: 'webhook',
  definition: 'An HTTP callback.',
  category: 'backend',
  avoid: ['web hook', 'call-back'],
};
const HANDLER = {
  id: 7,
  term: 'web hook handler',
  definition: 'Receives webhooks.',
  category: 'backend',
};
/** A file may say what the service refuses: a name to avoid that is the name in other capitals. */
const GLOSSARY = [
  WEBHOOK,
  HANDLER,
  { id: 9, term: 'GitHub', definition: 'A forge.', category: 'devops', avoid: ['Github'] },
];

function folder(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-lint-'));
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), content);
  }
  fs.writeFileSync(path.join(dir, 'glossary.json'), JSON.stringify(GLOSSARY));
  return dir;
}

const lint = (dir: string, ...args: string[]) =>
  runCli(['lint', '--glossary', 'glossary.json', ...args], { cwd: dir });

describe('glossary lint', () => {
  const dirs: string[] = [];
  const made = (files: Record<string, string>) => {
    const dir = folder(files);
    dirs.push(dir);
    return dir;
  };
  after(() => {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('names each finding at file:line:column with the name to use, and exits 1', async () => {
    const dir = made({
      'docs/a.txt': 'Intro.\nThe Web hook fires; a web hook handler takes it.\n',
      'docs/sub/b.txt': 'On Github, two web\nhooks.\n',
      'docs/clean.txt': 'A webhook.\n',
    });
    const run = await lint(dir);
    assert.equal(run.code, 1, run.stderr);
    assert.equal(
      run.stdout,
      [
        'docs/a.txt:2:5: use "Webhook", not "Web hook" (term 42)',
        'docs/sub/b.txt:1:4: use "GitHub", not "Github" (term 9)',
        'docs/sub/b.txt:1:16: use "webhooks", not "web hooks" (term 42)',
        '',
      ].join('\n'),
    );
    assert.match(run.stderr, /3 findings in 2 of 3 files/);
  });

  test('exits 0 with nothing found, and says how many files it read', async () => {
    const dir = made({ 'README.txt': 'A webhook on GitHub.\n' });
    const run = await lint(dir);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /no findings in 1 file\n/);
  });

  test('--format json: an array of {file, line, column, found, use, term}', async () => {
    const dir = made({ 'a.txt': 'x\n  web   hook\n' });
    const run = await lint(dir, '--format', 'json');
    assert.equal(run.code, 1, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), [
      { file: 'a.txt', line: 2, column: 3, found: 'web hook', use: 'webhook', term: 42 },
    ]);
  });

  test('columns count characters, not bytes, and a byte order mark is not one', async () => {
    const dir = made({ 'a.txt': '\uFEFFÉtés 🎉 web hook\r\nnaïve web hook\n' });
    const run = await lint(dir, '--format', 'json');
    const findings = JSON.parse(run.stdout) as { line: number; column: number }[];
    assert.deepEqual(
      findings.map((f) => [f.line, f.column]),
      [
        [1, 8],
        [2, 7],
      ],
    );
  });

  test('--format github: one workflow annotation per finding, escaped as the runner reads them', async () => {
    const dir = made({ 'docs/a,b.txt': 'a web hook\n' });
    const run = await lint(dir, '--format', 'github');
    assert.equal(run.code, 1, run.stderr);
    assert.equal(
      run.stdout,
      '::error file=docs/a%2Cb.txt,line=1,endLine=1,col=3,endColumn=11,title=Use "webhook"::use "webhook", not "web hook" (term 42)\n',
    );
  });

  test('--format sarif: valid SARIF 2.1.0 (its published schema), a result and a fix per finding', async () => {
    const dir = made({ 'docs/my page.txt': 'a\nThe Web hook.\n', 'b.txt': 'call-backs\n' });
    const run = await lint(dir, '--format', 'sarif');
    assert.equal(run.code, 1, run.stderr);
    const log = JSON.parse(run.stdout);
    const schema = JSON.parse(
      fs.readFileSync(
        path.join(
          import.meta.dirname,
          '../../node_modules/@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json',
        ),
        'utf8',
      ),
    );
    // The schema's language-tag pattern is not valid in Unicode mode; JSON Schema draft 4 predates it.
    const ajv = new AjvDraft04.default({ strict: false, allErrors: true, unicodeRegExp: false });
    // A copy: `validate` narrows what it is given, and the test reads the log below.
    const valid = ajv.validate(schema, structuredClone(log));
    assert.ok(valid, JSON.stringify(ajv.errors, null, 2));
    // The schema has teeth: a region with a column 0 is refused.
    const broken = structuredClone(log);
    broken.runs[0].results[0].locations[0].physicalLocation.region.startColumn = 0;
    assert.equal(ajv.validate(schema, structuredClone(broken)), false);
    const results = log.runs[0].results;
    assert.equal(results.length, 2);
    const [first, second] = results;
    assert.equal(first.locations[0].physicalLocation.artifactLocation.uri, 'b.txt');
    assert.equal(second.locations[0].physicalLocation.artifactLocation.uri, 'docs/my%20page.txt');
    assert.deepEqual(second.locations[0].physicalLocation.region, {
      startLine: 2,
      startColumn: 5,
      endLine: 2,
      endColumn: 13,
    });
    assert.equal(second.message.text, 'use "Webhook", not "Web hook" (term 42)');
    assert.equal(
      second.fixes[0].artifactChanges[0].replacements[0].insertedContent.text,
      'Webhook',
    );
    assert.equal(
      log.runs[0].originalUriBaseIds['%SRCROOT%'].uri,
      `file://${fs.realpathSync(dir)}/`,
    );
  });

  test('--fix rewrites every finding in place, keeping capitals; a second run is clean', async () => {
    const dir = made({
      'a.txt': 'The Web hook and WEB HOOK and two web\nhooks, on github.\n',
      'b.txt': 'Nothing to fix.\n',
    });
    const mode = 0o640;
    fs.chmodSync(path.join(dir, 'a.txt'), mode);
    const fixed = await lint(dir, '--fix');
    assert.equal(fixed.code, 0, fixed.stderr);
    assert.match(fixed.stderr, /fixed 4 findings in 1 file/);
    assert.equal(
      fs.readFileSync(path.join(dir, 'a.txt'), 'utf8'),
      'The Webhook and WEBHOOK and two webhooks, on GitHub.\n',
    );
    assert.equal(fs.statSync(path.join(dir, 'a.txt')).mode & 0o777, mode);
    assert.deepEqual(fs.readdirSync(dir).sort(), ['a.txt', 'b.txt', 'glossary.json']);
    const again = await lint(dir);
    assert.equal(again.code, 0, again.stdout);
  });

  test('skips .git, node_modules and --ignore globs; reads a file named outright', async () => {
    const dir = made({
      'docs/a.md': 'web hook\n',
      'docs/vendor/b.md': 'web hook\n',
      'CHANGELOG.md': 'web hook\n',
      '.git/c.md': 'web hook\n',
      'node_modules/d/e.md': 'web hook\n',
      'notes.log': 'web hook\n',
      'image.png': 'web hook\n',
    });
    const run = await lint(
      dir,
      '--ignore',
      'docs/vendor/**',
      '--ignore',
      'CHANGELOG.md',
      '--format',
      'json',
    );
    assert.deepEqual(
      (JSON.parse(run.stdout) as { file: string }[]).map((f) => f.file),
      ['docs/a.md'],
    );
    const named = await lint(dir, 'notes.log', 'docs');
    assert.equal(named.stdout.split('\n').filter(Boolean).length, 3);
  });

  test('many files are shared out to threads and give what one thread gives, in order', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 400; i++) {
      files[`docs/${String(i).padStart(3, '0')}.txt`] =
        i % 3 === 0
          ? `Page ${i}.\nA web hook, then ${'word '.repeat(i % 50)}a Call-back.\n`
          : `Page ${i}.\n`;
    }
    const dir = made(files);
    const run = await lint(dir, '--format', 'json');
    assert.equal(run.code, 1, run.stderr);
    const findings = JSON.parse(run.stdout) as {
      file: string;
      line: number;
      column: number;
      use: string;
    }[];
    const expected = Object.entries(files)
      .filter(([, text]) => text.includes('web hook'))
      .flatMap(([file, text]) => {
        const second = text.split('\n')[1] as string;
        return [
          { file, line: 2, column: 3, use: 'webhook' },
          { file, line: 2, column: second.indexOf('Call-back') + 1, use: 'Webhook' },
        ];
      });
    assert.deepEqual(
      findings.map(({ file, line, column, use }) => ({ file, line, column, use })),
      expected,
    );
  });

  test('usage and I/O errors exit 2 with one clear line', async () => {
    const dir = made({ 'a.txt': 'web hook\n' });
    const cases: [string[], RegExp][] = [
      [
        ['--format', 'xml'],
        /argument 'xml' is invalid. Allowed choices are text, json, sarif, github/,
      ],
      [['missing-folder'], /^glossary: cannot read missing-folder: ENOENT\n/],
    ];
    for (const [args, message] of cases) {
      const run = await lint(dir, ...args);
      assert.equal(run.code, 2, `${args}: ${run.stderr}`);
      assert.match(run.stderr, message);
    }
    fs.writeFileSync(path.join(dir, 'bad.json'), '{"id": 1}');
    const notList = await runCli(['lint', '--glossary', 'bad.json'], { cwd: dir });
    assert.equal(notList.code, 2);
    assert.match(
      notList.stderr,
      /bad.json is not a glossary export: expected a JSON array of terms/,
    );
    fs.writeFileSync(path.join(dir, 'bad.json'), '[{"id": 1, "term": "x", "avoid": "y"}]');
    const badItem = await runCli(['lint', '--glossary', 'bad.json'], { cwd: dir });
    assert.equal(badItem.code, 2);
    assert.match(badItem.stderr, /bad.json: item 0: its avoid is not a list of names/);
    const noService = await runCli(['lint', '--url', 'http://127.0.0.1:9'], { cwd: dir });
    assert.equal(noService.code, 2);
    assert.match(noService.stderr, /cannot reach the glossary service at http:\/\/127.0.0.1:9/);
  });

  test('a path that cannot be read is an error, and what could be read is still reported', async () => {
    const dir = made({ 'a.txt': 'web hook\n' });
    for (const format of ['json', 'sarif'] as const) {
      const run = await lint(dir, '--format', format, 'a.txt', 'missing.md');
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, /cannot read missing.md: ENOENT/);
      assert.match(run.stdout, /web hook/);
    }
  });

  test('--fix lints what it wrote: a replacement holding a name to avoid is still a finding', async () => {
    const dir = made({ 'a.txt': 'See the wh now, and foo.\n' });
    fs.writeFileSync(
      path.join(dir, 'swap.json'),
      JSON.stringify([
        { id: 3, term: 'web hook', definition: 'x', avoid: ['wh'] },
        { id: 4, term: 'thing', definition: 'x', avoid: ['the web'] },
        { id: 5, term: 'bar', definition: 'x', avoid: ['foo'] },
        { id: 6, term: 'foo', definition: 'x', avoid: ['bar'] },
      ]),
    );
    const run = await runCli(['lint', '--glossary', 'swap.json', '--fix', '--format', 'json'], {
      cwd: dir,
    });
    assert.equal(run.code, 1, run.stderr);
    assert.equal(
      fs.readFileSync(path.join(dir, 'a.txt'), 'utf8'),
      'See the web hook now, and bar.\n',
    );
    assert.deepEqual(
      (JSON.parse(run.stdout) as { found: string }[]).map((f) => f.found),
      ['the web', 'bar'],
    );
    assert.match(run.stderr, /fixed 2 findings in 1 file/);
  });

  test('--fix through a link rewrites the file it names, once, and the link stays a link', async () => {
    const dir = made({ 'docs/sub/a.md': 'A web hook.\n' });
    fs.symlinkSync('sub/a.md', path.join(dir, 'docs', 'link.md'));
    const run = await lint(dir, '--fix', 'docs');
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /fixed 1 finding in 1 file/);
    assert.ok(fs.lstatSync(path.join(dir, 'docs', 'link.md')).isSymbolicLink());
    assert.equal(fs.readFileSync(path.join(dir, 'docs', 'sub', 'a.md'), 'utf8'), 'A webhook.\n');
  });

  test('--fix leaves what it would break: reference links by their text, reStructuredText tables', async () => {
    const markdown =
      'See [web hook] and [web hook][], a web hook.\n\n[web hook]: https://example.com\n';
    const table = [
      'A web hook.',
      '',
      '+------------+-------+',
      '| web hook   | b     |',
      '+------------+-------+',
      '',
      '=========  =====',
      'A          B',
      '=========  =====',
      'web hook   x',
      '=========  =====',
      '',
    ].join('\n');
    const dir = made({ 'a.md': markdown, 'b.rst': table });
    const run = await lint(dir, '--fix', '--format', 'json', 'a.md', 'b.rst');
    assert.equal(run.code, 1, run.stderr);
    assert.equal(
      fs.readFileSync(path.join(dir, 'a.md'), 'utf8'),
      markdown.replace(', a web hook.', ', a webhook.'),
    );
    assert.equal(
      fs.readFileSync(path.join(dir, 'b.rst'), 'utf8'),
      table.replace('A web hook.', 'A webhook.'),
    );
    assert.deepEqual(
      (JSON.parse(run.stdout) as { file: string; line: number }[]).map(
        (f) => `${f.file}:${f.line}`,
      ),
      ['b.rst:4', 'b.rst:10'],
    );
  });

  test('a file it cannot read or fix is reported, the others are still done, and it exits 2', async () => {
    const dir = made({ 'a.txt': 'web hook\n' });
    // Not UTF-8 (Latin-1 "é"): linted, but never rewritten, since its other bytes would change.
    const latin1 = Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x20, ...Buffer.from('web hook\n')]);
    fs.writeFileSync(path.join(dir, 'b.txt'), latin1);
    const fixed = await lint(dir, '--fix', 'a.txt', 'b.txt');
    assert.equal(fixed.code, 2, fixed.stderr);
    assert.match(fixed.stderr, /cannot fix b.txt: it is not UTF-8/);
    assert.equal(fs.readFileSync(path.join(dir, 'a.txt'), 'utf8'), 'webhook\n');
    assert.deepEqual(fs.readFileSync(path.join(dir, 'b.txt')), latin1);
    assert.match(fixed.stdout, /^b.txt:1:6: use "webhook", not "web hook" \(term 42\)\n$/);
    // Linux answers EIO to reading this file, whoever reads it (root reads any other).
    const unreadable = await lint(dir, 'a.txt', '/proc/self/mem');
    assert.equal(unreadable.code, 2, unreadable.stderr);
    assert.match(unreadable.stderr, /cannot read .*proc\/self\/mem: EIO/);
  });
});

describe('glossary lint against a service', () => {
  let app: ListeningApp;
  before(async () => {
    app = await listenApp();
    const response = await fetch(`${app.url}/terms/bulk`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([WEBHOOK, HANDLER]),
    });
    assert.equal(response.status, 207);
    for (const item of (await response.json()) as { status: string }[]) {
      assert.equal(item.status, 'created');
    }
  });
  after(() => app.close());

  test('reads the glossary from GLOSSARY_URL', async () => {
    const dir = folder({ 'a.txt': 'A web hook.\n' });
    try {
      const run = await runCli(['lint'], {
        cwd: dir,
        env: { ...process.env, GLOSSARY_URL: app.url },
      });
      assert.equal(run.code, 1, run.stderr);
      assert.equal(run.stdout, 'a.txt:1:3: use "webhook", not "web hook" (term 42)\n');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
