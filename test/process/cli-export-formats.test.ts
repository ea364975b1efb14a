import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { EXPORT_FORMATS, exportFormats } from '../../src/glossary/exports/formats.ts';
import { sampleTerm } from '../helpers/app.ts';
import { tempDir } from '../helpers/backends.ts';
import { type ListeningApp, listenApp } from '../helpers/listening-app.ts';
import { runCli } from '../helpers/run-cli.ts';

const TERMS = [
  sampleTerm(1, { term: 'Webhook', aliases: ['WH'], avoid: ['web hook'], category: 'backend' }),
  sampleTerm(2, { term: 'Cache', category: 'frontend' }),
];

describe('glossary export, every registered format', () => {
  let app: ListeningApp;
  let dir: string;
  beforeEach(async () => {
    app = await listenApp();
    dir = tempDir();
    for (const term of TERMS) {
      const response = await fetch(`${app.url}/terms`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(term),
      });
      assert.equal(response.status, 201);
    }
  });
  afterEach(() => app.close());

  test('the help lists every format', async () => {
    const run = await runCli(['export', '--help']);
    assert.equal(run.code, 0);
    for (const name of EXPORT_FORMATS) assert.match(run.stdout, new RegExp(`\\b${name}\\b`));
  });

  test('a file format goes to stdout or --out FILE, the same bytes as GET /exports', async () => {
    for (const format of exportFormats()) {
      if (format.kind !== 'file') continue;
      const served = await (await fetch(`${app.url}/exports/${format.name}`)).text();
      const run = await runCli(['export', '--format', format.name, '--url', app.url]);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout, served, format.name);
      const file = path.join(dir, format.fileName);
      const out = await runCli([
        'export',
        '--format',
        format.name,
        '--out',
        file,
        '--url',
        app.url,
      ]);
      assert.equal(out.code, 0, out.stderr);
      assert.equal(out.stdout, '');
      assert.equal(fs.readFileSync(file, 'utf8'), served, format.name);
    }
  });

  test('a folder format is written into --out DIR, which it creates', async () => {
    for (const format of exportFormats()) {
      if (format.kind !== 'folder') continue;
      const out = path.join(dir, 'nested', format.name);
      const run = await runCli(['export', '--format', format.name, '--out', out, '--url', app.url]);
      assert.equal(run.code, 0, run.stderr);
      const expected: string[] = [];
      for await (const file of format.render(async function* () {
        yield TERMS as never;
      })) {
        expected.push(file.path);
        assert.equal(fs.readFileSync(path.join(out, file.path), 'utf8'), file.content);
      }
      assert.ok(expected.length > 0);
    }
    assert.ok(fs.existsSync(path.join(dir, 'nested', 'vale', '.vale.ini')));
  });

  test('a folder format needs --out DIR: a usage error otherwise', async () => {
    const run = await runCli(['export', '--format', 'hugo', '--url', app.url]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /-o DIR/);
    assert.equal(run.stdout, '');
    const unknown = await runCli(['export', '--format', 'docx', '--url', app.url]);
    assert.equal(unknown.code, 2);
  });

  test('a previous export is replaced whole; a folder holding anything else is refused', async () => {
    const out = path.join(dir, 'site');
    assert.equal(
      (await runCli(['export', '--format', 'hugo', '--out', out, '--url', app.url])).code,
      0,
    );
    assert.ok(fs.existsSync(path.join(out, 'content', 'glossary', '2.md')));
    await fetch(`${app.url}/terms/2`, { method: 'DELETE' });
    const again = await runCli(['export', '--format', 'hugo', '--out', out, '--url', app.url]);
    assert.equal(again.code, 0, again.stderr);
    assert.ok(!fs.existsSync(path.join(out, 'content', 'glossary', '2.md')), 'a stale page stays');
    const mine = path.join(dir, 'mine');
    fs.mkdirSync(mine);
    fs.writeFileSync(path.join(mine, 'notes.txt'), 'keep me');
    const refused = await runCli(['export', '--format', 'vale', '--out', mine, '--url', app.url]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /not empty/);
    assert.deepEqual(fs.readdirSync(mine), ['notes.txt']);
  });

  test('--category and --q filter as GET /terms does', async () => {
    const run = await runCli([
      'export',
      '--format',
      'csv',
      '--category',
      'frontend',
      '--url',
      app.url,
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout.trimEnd().split('\r\n').length, 2);
    assert.match(run.stdout, /^2,Cache,/m);
    const byAlias = await runCli(['export', '--q', 'WH', '--url', app.url]);
    assert.deepEqual(
      JSON.parse(byAlias.stdout).map((term: { id: number }) => term.id),
      [1],
    );
  });
});
