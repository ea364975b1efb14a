import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { newToken } from '../../src/glossary/access.ts';
import { exportFormats } from '../../src/glossary/exports/formats.ts';
import { sampleTerm } from '../helpers/app.ts';
import { tempDir } from '../helpers/backends.ts';
import { type ListeningApp, listenApp } from '../helpers/listening-app.ts';
import { runCli } from '../helpers/run-cli.ts';

/**
 * The CLI's messages when something is wrong with where or how it asks: another web server
 * behind --url, a token that is refused; `export -o FILE` written whole or not at all.
 */

/** A web server that is not a glossary: an HTML page for `/`, 404 (HTML) for anything else. */
async function otherServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((request, response) => {
    const found = request.url === '/';
    response.writeHead(found ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    response.end(found ? '<!doctype html><title>Intranet</title>' : '<h1>Not Found</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const HINT = 'is this a glossary service? Check --url or GLOSSARY_URL';

describe('glossary pointed at something else', () => {
  let other: Awaited<ReturnType<typeof otherServer>>;
  let glossary: ListeningApp;
  before(async () => {
    other = await otherServer();
    glossary = await listenApp();
  });
  after(async () => {
    await other.close();
    await glossary.close();
  });

  test('a web server answering 404 (HTML) on /terms: "is this a glossary service?", exit 1', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'terms.json');
    fs.writeFileSync(file, JSON.stringify([sampleTerm(1)]));
    for (const args of [
      ['export', '--url', other.url],
      ['export', '--format', 'csv', '--url', other.url],
    ]) {
      const run = await runCli(args);
      assert.equal(run.code, 1, `${args.join(' ')}: ${run.stderr}`);
      assert.equal(
        run.stderr,
        `glossary: ${other.url} answered 404 with an HTML page: ${HINT}\n`,
        args.join(' '),
      );
      assert.equal(run.stdout, '');
    }
    // lint: a glossary it cannot read is an I/O error, exit status 2.
    const lint = await runCli(['lint', dir, '--url', other.url]);
    assert.equal(lint.code, 2);
    assert.match(lint.stderr, /answered 404 with an HTML page: is this a glossary service\?/);
  });

  test('a web server answering HTML with 200 (its page under a prefix): the same question', async () => {
    // `--url http://host/` + `terms` is 404 here; a prefix ending on the page answers HTML 200.
    const server = http.createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<!doctype html><p>Welcome</p>');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const run = await runCli(['export', '--url', url]);
      assert.equal(run.code, 1);
      assert.equal(run.stderr, `glossary: ${url} did not answer with a list of terms: ${HINT}\n`);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('the glossary under another path prefix answers 404 on /terms: the same question', async () => {
    const url = `${glossary.url}/glossary`;
    const run = await runCli(['export', '--url', url]);
    assert.equal(run.code, 1);
    assert.equal(run.stderr, `glossary: ${url} answered 404: ${HINT}\n`);
  });
});

describe('glossary export with a token the service refuses', () => {
  let app: ListeningApp;
  let token: string;
  before(async () => {
    // Reads are public (the default): the token is checked because it is presented.
    app = await listenApp();
    const writer = newToken('writer', 'write');
    await app.store.addToken(writer.stored);
    const reader = newToken('ci', 'read-only');
    token = reader.token;
    await app.store.addToken(reader.stored);
    const created = await fetch(`${app.url}/terms`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${writer.token}` },
      body: JSON.stringify(sampleTerm(1)),
    });
    assert.equal(created.status, 201);
  });
  after(() => app.close());

  test('a wrong or revoked token fails with exit 1 and says so; no "give a token" hint', async () => {
    const good = await runCli(['export', '--url', app.url, '--token', token]);
    assert.equal(good.code, 0, good.stderr);
    const dir = tempDir();
    const file = path.join(dir, 'glossary.json');
    fs.writeFileSync(file, 'the previous export');
    await app.store.revokeToken('ci');
    for (const args of [
      ['export', '--url', app.url, '--token', token],
      ['export', '--url', app.url, '--token', token, '-o', file],
      ['export', '--url', app.url, '--token', 'glos_wrong', '--format', 'csv'],
    ]) {
      const run = await runCli(args);
      assert.equal(run.code, 1, args.join(' '));
      assert.equal(
        run.stderr,
        `glossary: the service at ${app.url} answered 401: Invalid token. (the token given with --token or GLOSSARY_TOKEN was refused: it is wrong or was revoked)\n`,
      );
      assert.doesNotMatch(run.stderr, /give a token/);
    }
    // The failed export to a file left the previous one as it was, and nothing beside it.
    assert.equal(fs.readFileSync(file, 'utf8'), 'the previous export');
    assert.deepEqual(fs.readdirSync(dir), ['glossary.json']);
    const env = { ...process.env, GLOSSARY_TOKEN: token };
    const fromEnv = await runCli(['export', '--url', app.url], { env });
    assert.equal(fromEnv.code, 1);
    assert.match(fromEnv.stderr, /was refused: it is wrong or was revoked\)\n$/);
  });
});

describe('glossary export -o FILE and the filters, every file format', () => {
  let app: ListeningApp;
  before(async () => {
    app = await listenApp();
    for (const term of [
      sampleTerm(1, { term: 'Webhook', category: 'backend' }),
      sampleTerm(2, { term: 'Cache', category: 'frontend' }),
      sampleTerm(3, { term: 'Cache busting', category: 'frontend' }),
    ]) {
      const response = await fetch(`${app.url}/terms`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(term),
      });
      assert.equal(response.status, 201);
    }
  });
  after(() => app.close());

  test('-o and --output write the bytes GET /exports answers for the same filters', async () => {
    const dir = tempDir();
    for (const format of exportFormats()) {
      if (format.kind !== 'file') continue;
      for (const [flag, filters] of [
        ['-o', ['--category', 'frontend']],
        ['--output', ['--q', 'busting']],
        ['-o', ['--category', 'frontend', '--q', 'cache']],
      ] as const) {
        const query = new URLSearchParams();
        for (let i = 0; i < filters.length; i += 2)
          query.set(String(filters[i]).slice(2), String(filters[i + 1]));
        const served = await (await fetch(`${app.url}/exports/${format.name}?${query}`)).text();
        const file = path.join(dir, `${format.name}-${query}`);
        const run = await runCli([
          'export',
          '--format',
          format.name,
          flag,
          file,
          ...filters,
          '--url',
          app.url,
        ]);
        assert.equal(run.code, 0, run.stderr);
        assert.equal(run.stdout, '');
        assert.equal(fs.readFileSync(file, 'utf8'), served, `${format.name} ${query}`);
        assert.doesNotMatch(served, /Webhook/, `${format.name} ${query}`);
      }
    }
    assert.ok(fs.readdirSync(dir).every((name) => !name.endsWith('.tmp')));
  });

  test('a folder format takes the filters too', async () => {
    const out = path.join(tempDir(), 'site');
    const run = await runCli([
      'export',
      '--format',
      'hugo',
      '-o',
      out,
      '--category',
      'frontend',
      '--url',
      app.url,
    ]);
    assert.equal(run.code, 0, run.stderr);
    const pages = fs.readdirSync(path.join(out, 'content', 'glossary')).sort();
    assert.ok(pages.includes('2.md') && pages.includes('3.md'), pages.join(' '));
    assert.ok(!pages.includes('1.md'), pages.join(' '));
  });

  test('every command has examples in its --help', async () => {
    for (const args of [
      [],
      ['serve'],
      ['export'],
      ['lint'],
      ['backup'],
      ['token'],
      ['token', 'create'],
      ['token', 'list'],
      ['token', 'revoke'],
      ['webhook'],
      ['webhook', 'add'],
      ['webhook', 'list'],
      ['webhook', 'remove'],
      ['webhook', 'deliveries'],
      ['webhook', 'rotate'],
    ]) {
      const run = await runCli([...args, '--help']);
      assert.equal(run.code, 0, args.join(' '));
      assert.match(run.stdout, /\nExamples:\n {2}[$#] /, args.join(' '));
      assert.match(run.stdout.split('\nExamples:\n')[1] ?? '', /^ {2}\$ .*glossary /m);
    }
  });
});
