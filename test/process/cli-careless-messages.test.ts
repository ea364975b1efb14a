import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sampleTerm } from '../helpers/app.ts';
import { tempDir } from '../helpers/backends.ts';
import { type ListeningApp, listenApp } from '../helpers/listening-app.ts';
import { runCli } from '../helpers/run-cli.ts';

/** What the CLI says to the arguments a careless person gives it. */
describe('glossary: careless arguments', () => {
  let app: ListeningApp;
  before(async () => {
    app = await listenApp();
  });
  after(() => app.close());

  const unsendable =
    'glossary: the token given with --token or GLOSSARY_TOKEN holds a line break or another character an HTTP header cannot carry; check how it was copied\n';

  test('a token over two lines, or beyond Latin-1, is a usage error that never shows the token (not "cannot reach")', async () => {
    const env = { ...process.env, GLOSSARY_TOKEN: 'glos_secret\nrest' };
    for (const args of [
      ['export', '--url', app.url, '--token', 'glos_secret\nrest'],
      ['export', '--url', app.url, '--token', 'glos_令牌'],
      ['export', '--url', app.url],
      ['import', '-', '--url', app.url],
      ['lint', '--url', app.url, '.'],
    ]) {
      const run = await runCli(args, { env, stdin: '[]' });
      assert.equal(run.stderr, unsendable, args.join(' '));
      assert.equal(run.code, 2, args.join(' '));
      assert.equal(run.stdout, '');
    }
  });

  test('white space around a token (a copy with its line end) is no error: fetch drops it', async () => {
    const run = await runCli(['export', '--url', app.url, '--token', 'glos_abc\r\n']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, '[]\n');
  });

  test('another JSON API at --url (a list of other things, a 200 to a bulk import) is told as no glossary service', async () => {
    const other = http.createServer((request, response) => {
      request.resume();
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        request.method === 'GET' ? '[{"name":"Terms of service","version":3}]' : '{"ok":true}',
      );
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    const notGlossary = 'is this a glossary service? Check --url or GLOSSARY_URL\n';
    try {
      const exported = await runCli(['export', '--url', url]);
      assert.equal(exported.stdout, '');
      assert.equal(exported.code, 1);
      assert.equal(
        exported.stderr,
        `glossary: ${url} did not answer with a list of terms: ${notGlossary}`,
      );
      const file = path.join(tempDir('glossary-careless-'), 'terms.json');
      fs.writeFileSync(file, JSON.stringify([sampleTerm(1)]));
      const imported = await runCli(['import', file, '--url', url]);
      assert.equal(imported.code, 1);
      assert.equal(imported.stderr, `glossary: ${url} answered 200: ${notGlossary}`);
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });

  test('a CSV parse error after a multi-line value in a CRLF file names the line its record starts on', async () => {
    const dir = tempDir('glossary-careless-');
    const short = path.join(dir, 'short.csv');
    fs.writeFileSync(
      short,
      'id,term,definition,category\r\n1,a,"two\r\nlines",backend\r\n2,b,no category\r\n',
    );
    const shortRun = await runCli(['import', short, '--url', app.url]);
    assert.equal(shortRun.code, 1);
    assert.equal(
      shortRun.stderr,
      `glossary: ${short} is not valid CSV: Invalid Record Length: columns length is 4, got 3 on line 4\n`,
    );
    const open = path.join(dir, 'open.csv');
    fs.writeFileSync(open, 'id,term,definition,category\r\n1,a,"x\r\ny",backend\r\n2,"b\r\n\r\n');
    const openRun = await runCli(['import', open, '--url', app.url]);
    assert.match(openRun.stderr, /Quote Not Closed: .* at line 4\n$/);
  });

  test('export -o - writes to standard output, not to a file named -', async () => {
    const dir = tempDir('glossary-careless-');
    const run = await runCli(['export', '--url', app.url, '--format', 'csv', '-o', '-'], {
      cwd: dir,
    });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, 'id,term,definition,category,see_also,aliases,avoid\r\n');
    assert.deepEqual(fs.readdirSync(dir), []);
  });

  test('export -o into a missing folder, or through a file, is one line saying so (exit 1), and leaves nothing', async () => {
    const dir = tempDir('glossary-careless-');
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'notes');
    const cases: [string, string][] = [
      ['missing/glossary.json', 'its folder does not exist (ENOENT)'],
      ['notes.txt/glossary.json', 'a part of its path is a file, not a folder (ENOTDIR)'],
    ];
    for (const [out, reason] of cases) {
      const run = await runCli(['export', '--url', app.url, '-o', out], { cwd: dir });
      assert.equal(run.code, 1, out);
      assert.equal(run.stderr, `glossary: cannot write ${out}: ${reason}\n`);
    }
    assert.deepEqual(fs.readdirSync(dir), ['notes.txt']);
  });

  test('export -o over an existing file keeps its permissions, and through a symbolic link replaces the file the link leads to', async () => {
    const dir = tempDir('glossary-careless-');
    const private_ = path.join(dir, 'private.csv');
    fs.writeFileSync(private_, 'old');
    fs.chmodSync(private_, 0o600);
    fs.symlinkSync('private.csv', path.join(dir, 'link.csv'));
    for (const out of ['private.csv', 'link.csv']) {
      const run = await runCli(['export', '--url', app.url, '--format', 'csv', '-o', out], {
        cwd: dir,
      });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(fs.statSync(private_).mode & 0o777, 0o600, out);
      assert.ok(fs.lstatSync(path.join(dir, 'link.csv')).isSymbolicLink(), out);
      assert.match(fs.readFileSync(private_, 'utf8'), /^id,term,definition/);
    }
    assert.deepEqual(fs.readdirSync(dir).sort(), ['link.csv', 'private.csv']);
  });

  test('a --url that redirects (http to https, a moved host) names where to: a POST followed as a GET met a 405', async () => {
    const mover = http.createServer((request, response) => {
      request.resume();
      response.writeHead(301, { location: `${app.url}${request.url}` }).end();
    });
    await new Promise<void>((resolve) => mover.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(mover.address() as AddressInfo).port}`;
    try {
      const file = path.join(tempDir('glossary-careless-'), 'terms.json');
      fs.writeFileSync(file, JSON.stringify([sampleTerm(1)]));
      const run = await runCli(['import', file, '--url', url]);
      assert.equal(run.code, 1);
      assert.equal(
        run.stderr,
        `glossary: the service at ${url} answered 405: Method Not Allowed (redirected to ${app.url}/terms/bulk: give the address it moved to as --url)\n`,
      );
    } finally {
      await new Promise((resolve) => mover.close(resolve));
    }
  });
});
