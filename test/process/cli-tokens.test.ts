import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { sampleTerm } from '../helpers/app.ts';
import { backends, tempDir } from '../helpers/backends.ts';
import { listenApp } from '../helpers/listening-app.ts';
import { runCli } from '../helpers/run-cli.ts';

/** `glossary token ...`, `--token` / GLOSSARY_TOKEN, GLOSSARY_URL and --version. */

const VERSION = (
  JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

for (const backend of backends()) {
  describe(`glossary token (${backend.name})`, () => {
    test('create prints the token once, list shows names and kinds, revoke stops it at once', async () => {
      const location = await backend.location();
      const env = { ...process.env, DATABASE_URL: location.url };
      // The service and the command share the store, as they would on one machine.
      const glossary = await listenApp({ ...backend, open: () => location.open() });
      try {
        const empty = await runCli(['token', 'list'], { env });
        assert.equal(empty.code, 0, empty.stderr);
        assert.equal(
          empty.stdout,
          'No tokens: writes are open to anyone who can reach the service.\n',
        );

        const created = await runCli(['token', 'create', 'ci'], { env });
        assert.equal(created.code, 0, created.stderr);
        const token = created.stdout.trim();
        assert.match(token, /^glos_[A-Za-z0-9_-]{55}$/);
        assert.match(created.stderr, /write token 'ci' created; it is shown only this once/);
        const reader = (
          await runCli(['token', 'create', 'dashboard', '--read-only'], { env })
        ).stdout.trim();

        const taken = await runCli(['token', 'create', 'ci'], { env });
        assert.equal(taken.code, 1);
        assert.match(taken.stderr, /^glossary: a token named 'ci' exists already/m);
        assert.equal((await runCli(['token', 'create', 'no spaces'], { env })).code, 2);

        const listed = await runCli(['token', 'list'], { env });
        const lines = listed.stdout.trimEnd().split('\n');
        assert.match(lines[0] ?? '', /^NAME\s+KIND\s+CREATED$/);
        assert.match(lines[1] ?? '', /^ci\s+write\s+\d{4}-\d\d-\d\dT[\d:.]+Z$/);
        assert.match(lines[2] ?? '', /^dashboard\s+read-only\s+\d{4}-/);
        assert.ok(!listed.stdout.includes(token.slice(5)), 'list never shows a token');

        const post = (id: number, secret?: string) =>
          fetch(`${glossary.url}/terms`, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              ...(secret ? { authorization: `Bearer ${secret}` } : {}),
            },
            body: JSON.stringify(sampleTerm(id)),
          });
        assert.equal((await post(1)).status, 401);
        assert.equal((await post(1, reader)).status, 403);
        assert.equal((await post(1, token)).status, 201);

        const revoked = await runCli(['token', 'revoke', 'ci'], { env });
        assert.equal(revoked.code, 0, revoked.stderr);
        assert.equal(revoked.stdout, "Token 'ci' revoked.\n");
        assert.equal((await post(2, token)).status, 401);
        assert.equal((await runCli(['token', 'revoke', 'ci'], { env })).code, 1);

        const last = await runCli(['token', 'revoke', 'dashboard'], { env });
        assert.match(last.stderr, /no token is left: writes are open to anyone .* again/);
        assert.equal((await post(3)).status, 201);
      } finally {
        await glossary.close();
        await location.dispose();
      }
    });

    test('says on stderr which store it opened, never with a password', async () => {
      const location = await backend.location();
      try {
        await (await location.open()).close();
        const url = new URL(location.url);
        // The server's own password when it asks for one (the throwaway server does, SCRAM);
        // else one it ignores (a server that trusts local connections): either is never said.
        if (backend.name === 'postgres' && url.password === '') url.password = 'hunter2';
        const secret = url.password || 'hunter2';
        const run = await runCli(['token', 'list'], {
          env: { ...process.env, DATABASE_URL: url.toString() },
        });
        assert.equal(run.code, 0, run.stderr);
        const expected =
          backend.name === 'sqlite'
            ? `SQLite ${url.pathname}`
            : `PostgreSQL ${url.hostname}:${url.port || '5432'}${url.pathname}`;
        assert.equal(run.stderr, `glossary: store: ${expected}\n`);
        assert.ok(!run.stderr.includes(secret));
      } finally {
        await location.dispose();
      }
    });
  });
}

describe('glossary token in a folder without a store', () => {
  test('refuses to create a new SQLite file unless --create, naming the absolute path', async () => {
    const dir = tempDir('glossary-cli-');
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env.DATABASE_URL;
    const file = path.join(dir, 'data', 'glossary.db');
    for (const args of [
      ['token', 'create', 'ci'],
      ['token', 'list'],
      ['token', 'revoke', 'ci'],
      ['webhook', 'add', 'https://docs.example.com/hook'],
      ['webhook', 'list'],
    ]) {
      const run = await runCli(args, { env, cwd: dir });
      assert.equal(run.code, 1, args.join(' '));
      assert.equal(run.stdout, '', 'no token is printed');
      assert.equal(
        run.stderr,
        `glossary: no glossary store at ${file}; run this in the service's folder or set DATABASE_URL as the service has it (or give --create to start a new store there)\n`,
      );
      assert.equal(fs.existsSync(path.join(dir, 'data')), false, args.join(' '));
    }

    const created = await runCli(['token', 'create', 'ci', '--create'], { env, cwd: dir });
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /^glos_/);
    assert.ok(created.stderr.startsWith(`glossary: store: SQLite ${file}\n`), created.stderr);
    assert.ok(fs.existsSync(file));
    const listed = await runCli(['token', 'list'], { env, cwd: dir });
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^ci\s+write/m);
  });
});

for (const backend of backends().filter((one) => one.name === 'postgres')) {
  describe('glossary token with a PostgreSQL database that holds no glossary', () => {
    test('refuses to set one up there unless --create, naming the database', async () => {
      const location = await backend.location(); // an empty database: no glossary tables
      const env = { ...process.env, DATABASE_URL: location.url };
      const where = new URL(location.url);
      const named = `PostgreSQL ${where.hostname}:${where.port || '5432'}${where.pathname}`;
      try {
        for (const args of [
          ['token', 'create', 'ci'],
          ['webhook', 'add', 'https://docs.example.com/hook'],
        ]) {
          const run = await runCli(args, { env });
          assert.equal(run.code, 1, args.join(' '));
          assert.equal(run.stdout, '', 'no token is printed');
          assert.equal(
            run.stderr,
            `glossary: store: ${named}\nglossary: no glossary in ${named}: the database has no glossary tables; set DATABASE_URL as the service has it (or give --create to start a new glossary there)\n`,
          );
        }
        const created = await runCli(['token', 'create', 'ci', '--create'], { env });
        assert.equal(created.code, 0, created.stderr);
        assert.match(created.stdout, /^glos_/);
        const listed = await runCli(['token', 'list'], { env });
        assert.equal(listed.code, 0, listed.stderr);
        assert.match(listed.stdout, /^ci\s+write/m);
      } finally {
        await location.dispose();
      }
    });
  });
}

describe('glossary with a service that needs a token', () => {
  test('--token and GLOSSARY_TOKEN are sent; GLOSSARY_URL names the service', async () => {
    const glossary = await listenApp(undefined, { readAccess: 'token' });
    try {
      const { newToken } = await import('../../src/glossary/access.ts');
      const { token, stored } = newToken('ci', 'write');
      await glossary.store.addToken(stored);
      const file = path.join(tempDir('glossary-cli-'), 'terms.json');
      fs.writeFileSync(file, JSON.stringify([sampleTerm(1), sampleTerm(2)]));

      const refused = await runCli(['import', file, '--url', glossary.url]);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /answered 401: Authentication required\. \(give a token/);

      const given = await runCli(['import', file, '--url', glossary.url, '--token', token]);
      assert.equal(given.code, 0, given.stderr);
      assert.match(given.stdout, /2 created, 0 rejected/);

      const env = { ...process.env, GLOSSARY_URL: glossary.url, GLOSSARY_TOKEN: token };
      const exported = await runCli(['export'], { env });
      assert.equal(exported.code, 0, exported.stderr);
      assert.deepEqual(JSON.parse(exported.stdout), [sampleTerm(1), sampleTerm(2)]);
      const wrong = await runCli(['export'], { env: { ...env, GLOSSARY_TOKEN: 'glos_nope' } });
      assert.equal(wrong.code, 1);
      assert.match(wrong.stderr, /answered 401: Invalid token\./);
    } finally {
      await glossary.close();
    }
  });

  test('--version prints the version', async () => {
    const run = await runCli(['--version']);
    assert.equal(run.code, 0);
    assert.equal(run.stdout.trim(), VERSION);
  });
});
