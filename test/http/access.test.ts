import assert from 'node:assert/strict';
import net from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { newToken, verifyToken } from '../../src/glossary/access.ts';
import type { AccessStore, TermStore } from '../../src/glossary/term-store.ts';
import type { FoundToken, TokenKind } from '../../src/glossary/tokens.ts';
import { buildApp } from '../../src/http/app.ts';
import { sampleTerm, startApp, TEST_CONFIG, type TestApp } from '../helpers/app.ts';
import { backends } from '../helpers/backends.ts';
import { getJson } from '../helpers/http.ts';
import { listenApp } from '../helpers/listening-app.ts';

/** Write tokens and READ_ACCESS: editing-and-access.md, "Write access". */

async function tokenFor(store: TermStore, name: string, kind: TokenKind = 'write') {
  const { token, stored } = newToken(name, kind);
  assert.equal(await store.addToken(stored), 'added');
  return token;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
/** A well-formed token that no store holds: a guess. */
const guess = (i: number) => `glos_${String(i).padStart(55, 'G')}`;
const REQUIRED = {
  status: 401,
  detail: 'Authentication required.',
  challenge: 'Bearer realm="glossary"',
};
const INVALID = {
  status: 401,
  detail: 'Invalid token.',
  challenge: 'Bearer realm="glossary", error="invalid_token"',
};
const READ_ONLY = {
  status: 403,
  detail: 'This token may only read.',
  challenge: 'Bearer realm="glossary", error="insufficient_scope"',
};

async function expectRefusal(
  app: FastifyInstance,
  request: InjectOptions,
  expected: { status: number; detail: string; challenge: string },
) {
  const response = await app.inject(request);
  const what = `${request.method ?? 'GET'} ${String(request.url)}`;
  assert.equal(response.statusCode, expected.status, what);
  assert.deepEqual(response.json(), { detail: expected.detail }, what);
  assert.equal(response.headers['www-authenticate'], expected.challenge, what);
}

const writes = (id: number): InjectOptions[] => [
  { method: 'POST' as const, url: '/terms', payload: sampleTerm(id) },
  { method: 'POST' as const, url: '/terms/bulk', payload: [sampleTerm(id)] },
  { method: 'PUT' as const, url: '/terms/1', payload: sampleTerm(1, { term: 'Changed' }) },
  { method: 'PATCH' as const, url: '/terms/1', payload: { term: 'Changed' } },
  { method: 'DELETE' as const, url: '/terms/1' },
  { method: 'POST' as const, url: '/terms/1/restore', payload: { revision: 1 } },
];

for (const backend of backends()) {
  describe(`write tokens (${backend.name})`, () => {
    let t: TestApp;
    let write: string;
    let reader: string;
    before(async () => {
      // These tests send hundreds of bad tokens from one address: no limit on failures here.
      t = await startApp(backend, { authFailureLimit: null });
      await t.app.inject({ method: 'POST', url: '/terms', payload: sampleTerm(1) });
      write = await tokenFor(t.store, 'ci');
      reader = await tokenFor(t.store, 'dashboard', 'read-only');
    });
    after(() => t.close());

    test('once a token exists every write needs one: none 401, unknown 401, read-only 403', async () => {
      for (const request of writes(2)) {
        await expectRefusal(t.app, request, REQUIRED);
        await expectRefusal(
          t.app,
          { ...request, headers: bearer(`glos_${'A'.repeat(55)}`) },
          INVALID,
        );
        await expectRefusal(t.app, { ...request, headers: bearer(reader) }, READ_ONLY);
      }
      assert.deepEqual(await getJson(t.app, '/terms'), [sampleTerm(1)]);
      assert.equal(((await getJson(t.app, '/terms/1/history')) as unknown[]).length, 1);
    });

    test('a write token writes, and the history names it; reads stay open by default', async () => {
      const created = await t.app.inject({
        method: 'POST',
        url: '/terms',
        payload: sampleTerm(3),
        headers: bearer(write),
      });
      assert.equal(created.statusCode, 201);
      const patched = await t.app.inject({
        method: 'PATCH',
        url: '/terms/3',
        payload: { term: 'Three' },
        headers: { ...bearer(write), 'content-type': 'application/merge-patch+json' },
      });
      assert.equal(patched.statusCode, 200);
      const history = (await getJson(t.app, '/terms/3/history')) as { by: string | null }[];
      assert.deepEqual(
        history.map((entry) => entry.by),
        ['ci', 'ci'],
      );
      // The scheme is case-insensitive (RFC 9110 §11.1).
      const lower = await t.app.inject({
        method: 'DELETE',
        url: '/terms/3',
        headers: { authorization: `bearer ${write}` },
      });
      assert.equal(lower.statusCode, 204);
    });

    test('an open read that presents a token has it checked: a wrong one is 401, not ignored', async () => {
      for (const url of [
        '/terms',
        '/terms?q=term',
        '/terms/1',
        '/terms/1/history',
        '/exports/csv',
      ]) {
        assert.equal((await t.app.inject({ url })).statusCode, 200, url);
        for (const token of [write, reader]) {
          const read = await t.app.inject({ url, headers: bearer(token) });
          assert.equal(read.statusCode, 200, url);
        }
        await expectRefusal(t.app, { url, headers: bearer(guess(1)) }, INVALID);
        await expectRefusal(t.app, { url, headers: { authorization: 'Bearer' } }, INVALID);
        // Another scheme carries no Bearer token: the read stays open to it.
        const basic = await t.app.inject({ url, headers: { authorization: 'Basic dXNlcjpwYXNz' } });
        assert.equal(basic.statusCode, 200, url);
      }
    });

    test('a revoked token stops working at once, here and in another instance', async () => {
      const location = await backend.location();
      const fromLocation = { ...backend, open: () => location.open() };
      const one = await startApp(fromLocation);
      const two = await startApp(fromLocation);
      try {
        // Another token stays: with none left, writes would be open again (as decided).
        await tokenFor(one.store, 'stays');
        const token = await tokenFor(one.store, 'temporary');
        const post = (app: FastifyInstance, id: number) =>
          app.inject({
            method: 'POST',
            url: '/terms',
            payload: sampleTerm(id),
            headers: bearer(token),
          });
        assert.equal((await post(two.app, 1)).statusCode, 201);
        assert.equal(await one.store.revokeToken('temporary'), true);
        await expectRefusal(
          two.app,
          { method: 'POST', url: '/terms', payload: sampleTerm(2), headers: bearer(token) },
          INVALID,
        );
        assert.deepEqual(
          ((await getJson(one.app, '/terms')) as { id: number }[]).map((term) => term.id),
          [1],
        );
      } finally {
        await one.close();
        await two.close();
        await location.dispose();
      }
    });

    test('malformed Authorization headers are refused without storing anything', async () => {
      const cases: [string, typeof REQUIRED][] = [
        ['', REQUIRED],
        ['   ', REQUIRED],
        ['Basic dXNlcjpwYXNz', REQUIRED],
        ['Bearertoken', REQUIRED],
        ['Bearer', INVALID],
        ['Bearer ', INVALID],
        [`Bearer ${write} ${write}`, INVALID],
        [`Bearer ${write}x`, INVALID],
        [`Bearer ${write.slice(0, -1)}`, INVALID],
        [`Bearer ${'x'.repeat(8000)}`, INVALID],
        [`Bearer ${write.replace('glos_', 'GLOS_')}`, INVALID],
      ];
      for (const [authorization, expected] of cases) {
        await expectRefusal(
          t.app,
          { method: 'POST', url: '/terms', payload: sampleTerm(9), headers: { authorization } },
          expected,
        );
      }
      await fc.assert(
        fc.asyncProperty(
          fc.string({ unit: 'binary-ascii', maxLength: 300 }).filter((s) => !/[\r\n\0]/.test(s)),
          async (value) => {
            const response = await t.app.inject({
              method: 'DELETE',
              url: '/terms/1',
              headers: { authorization: value },
            });
            assert.ok(
              [401, 403].includes(response.statusCode),
              `${response.statusCode} for ${value}`,
            );
          },
        ),
        { numRuns: 200 },
      );
      assert.equal((await t.app.inject('/terms/9')).statusCode, 404);
      assert.equal((await t.app.inject('/terms/1')).statusCode, 200);
    });

    test('tokens are neither logged nor echoed, whatever the answer', async () => {
      const lines: string[] = [];
      const stream = new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk));
          done();
        },
      });
      const app = await buildApp({
        config: { ...TEST_CONFIG, logLevel: 'trace' },
        store: t.store,
        logger: { level: 'trace', stream },
      });
      try {
        const bogus = `glos_${'B'.repeat(55)}`;
        for (const token of [write, reader, bogus]) {
          for (const request of writes(70)) {
            const response = await app.inject({ ...request, headers: bearer(token) });
            assert.ok(!response.body.includes(token));
          }
          await app.inject({ url: '/terms/1', headers: bearer(token) });
          await app.inject({ url: '/terms/abc', headers: bearer(token) });
        }
        assert.ok(lines.length > 20, 'the app logged its requests');
        const logged = lines.join('');
        for (const token of [write, reader, bogus]) {
          assert.ok(!logged.includes(token.slice(17)), 'a token secret reached the log');
        }
      } finally {
        await app.close();
      }
    });
  });

  describe(`READ_ACCESS=token (${backend.name})`, () => {
    let t: TestApp;
    let reader: string;
    before(async () => {
      t = await startApp(backend, { readAccess: 'token' });
      await t.app.inject({ method: 'POST', url: '/terms', payload: sampleTerm(1) });
      reader = await tokenFor(t.store, 'reader', 'read-only');
    });
    after(() => t.close());

    test('reads of the glossary need a token of either kind; probes, docs and page do not', async () => {
      for (const url of ['/terms', '/terms?limit=1', '/terms/1', '/terms/1/history']) {
        await expectRefusal(t.app, { url }, REQUIRED);
        const head = await t.app.inject({ method: 'HEAD', url });
        assert.equal(head.statusCode, 401, `HEAD ${url}`);
        assert.equal(head.headers['www-authenticate'], REQUIRED.challenge);
        const allowed = await t.app.inject({ url, headers: bearer(reader) });
        assert.equal(allowed.statusCode, 200, url);
      }
      for (const url of ['/healthz', '/readyz', '/openapi.json', '/docs']) {
        assert.ok((await t.app.inject({ url })).statusCode < 400, url);
      }
    });
  });

  describe(`access and RATE_LIMIT (${backend.name})`, () => {
    test('every request counts, a refused one too: guessed tokens meet 429 before they are looked at', async () => {
      const t = await startApp(backend, {
        readAccess: 'token',
        rateLimit: { max: 5, windowMs: 60_000 },
        authFailureLimit: null,
      });
      try {
        const reader = await tokenFor(t.store, 'reader', 'read-only');
        const statuses = [];
        for (let i = 0; i < 12; i += 1) {
          statuses.push(
            (await t.app.inject({ url: '/terms', headers: bearer(guess(i)) })).statusCode,
          );
        }
        assert.deepEqual(statuses, [...Array(5).fill(401), ...Array(7).fill(429)]);
        // Over its limit, the client is refused whatever it presents: the token is not looked at.
        const spent = await t.app.inject({ url: '/terms', headers: bearer(reader) });
        assert.equal(spent.statusCode, 429);
        assert.match(spent.json().detail, /^Too many requests: at most 5 per 60 seconds/);
        assert.ok(Number(spent.headers['retry-after']) > 0);
        // A client elsewhere is not affected.
        const elsewhere = await t.app.inject({
          url: '/terms',
          headers: bearer(reader),
          remoteAddress: '10.0.0.2',
        });
        assert.equal(elsewhere.statusCode, 200);
      } finally {
        await t.close();
      }
    });
  });

  describe(`AUTH_FAILURE_LIMIT (${backend.name})`, () => {
    const limit = { max: 3, windowMs: 60_000 };

    test('it is on by default, without RATE_LIMIT', async () => {
      const t = await startApp(backend);
      try {
        assert.equal(TEST_CONFIG.rateLimit, null);
        await tokenFor(t.store, 'ci');
        const statuses = [];
        for (let i = 0; i < 40; i += 1) {
          const request = { method: 'DELETE' as const, url: '/terms/1', headers: bearer(guess(i)) };
          statuses.push((await t.app.inject(request)).statusCode);
        }
        const max = TEST_CONFIG.authFailureLimit?.max ?? 0;
        assert.ok(max > 0 && max < 40);
        assert.deepEqual(statuses, [...Array(max).fill(401), ...Array(40 - max).fill(429)]);
      } finally {
        await t.close();
      }
    });

    test('a client whose tokens failed too often gets 429 with Retry-After; others are not affected', async () => {
      const t = await startApp(backend, { authFailureLimit: limit });
      try {
        const write = await tokenFor(t.store, 'ci');
        const post = (id: number, token: string, remoteAddress = '127.0.0.1') =>
          t.app.inject({
            method: 'POST',
            url: '/terms',
            payload: sampleTerm(id),
            headers: bearer(token),
            remoteAddress,
          });
        // Neither valid tokens nor requests without one count as failures.
        for (let i = 0; i < 5; i += 1) assert.equal((await post(100 + i, write)).statusCode, 201);
        for (let i = 0; i < 5; i += 1) {
          await expectRefusal(t.app, { method: 'DELETE', url: '/terms/1' }, REQUIRED);
        }
        for (let i = 0; i < limit.max; i += 1) {
          await expectRefusal(
            t.app,
            { method: 'DELETE', url: '/terms/100', headers: bearer(guess(i)) },
            INVALID,
          );
        }
        for (const token of [guess(99), 'nonsense', `${write}x`]) {
          const refused = await t.app.inject({
            method: 'DELETE',
            url: '/terms/100',
            headers: bearer(token),
          });
          assert.equal(refused.statusCode, 429);
          assert.deepEqual(refused.json(), {
            detail: 'Too many failed authentications: at most 3 per 60 seconds from one client.',
          });
          const wait = Number(refused.headers['retry-after']);
          assert.ok(wait > 0 && wait <= 60, `Retry-After ${wait}`);
        }
        // The token this client had already proven keeps working (and nothing was deleted).
        assert.equal((await post(200, write)).statusCode, 201);
        assert.equal((await t.app.inject('/terms/100')).statusCode, 200);
        // Another client is not affected, and a valid token works there from the start.
        assert.equal((await post(300, write, '10.0.0.2')).statusCode, 201);
        await expectRefusal(
          t.app,
          {
            method: 'DELETE',
            url: '/terms/1',
            headers: bearer(guess(1)),
            remoteAddress: '10.0.0.2',
          },
          INVALID,
        );
      } finally {
        await t.close();
      }
    });

    test('guesses sent all at once count while they are checked: no more than the limit are looked at', async () => {
      const t = await startApp(backend, { authFailureLimit: limit });
      try {
        await tokenFor(t.store, 'ci');
        const responses = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            t.app.inject({ method: 'DELETE', url: '/terms/1', headers: bearer(guess(i)) }),
          ),
        );
        const statuses = responses.map((response) => response.statusCode).sort();
        assert.deepEqual(statuses, [...Array(3).fill(401), ...Array(17).fill(429)]);
        const next = await t.app.inject({
          method: 'DELETE',
          url: '/terms/1',
          headers: bearer(guess(21)),
        });
        assert.equal(next.statusCode, 429);
        assert.ok(Number(next.headers['retry-after']) > 1, 'the failures close the window');
      } finally {
        await t.close();
      }
    });

    test('a new client sending a valid token many times at once: the excess retries in a second, then passes', async () => {
      const t = await startApp(backend, { authFailureLimit: limit });
      try {
        const write = await tokenFor(t.store, 'ci');
        const burst = () =>
          Promise.all(
            Array.from({ length: 20 }, () =>
              t.app.inject({ method: 'DELETE', url: '/terms/1', headers: bearer(write) }),
            ),
          );
        const first = await burst();
        for (const response of first) {
          if (response.statusCode === 429) assert.equal(response.headers['retry-after'], '1');
          else assert.equal(response.statusCode, 404);
        }
        assert.ok(first.filter((response) => response.statusCode === 404).length >= limit.max);
        const again = await burst();
        assert.deepEqual(
          again.map((response) => response.statusCode),
          Array(20).fill(404),
          'the token is proven now',
        );
      } finally {
        await t.close();
      }
    });

    test('a token not yet proven from a blocked client waits like a guess (no oracle)', async () => {
      const t = await startApp(backend, { authFailureLimit: limit, readAccess: 'token' });
      try {
        const reader = await tokenFor(t.store, 'reader', 'read-only');
        for (let i = 0; i < limit.max; i += 1) {
          await expectRefusal(t.app, { url: '/terms', headers: bearer(guess(i)) }, INVALID);
        }
        const blocked = await t.app.inject({ url: '/terms', headers: bearer(reader) });
        assert.equal(blocked.statusCode, 429);
        // A request without a token has none to look at: it keeps its 401.
        await expectRefusal(t.app, { url: '/terms' }, REQUIRED);
      } finally {
        await t.close();
      }
    });
  });

  describe(`verifyToken (${backend.name})`, () => {
    test('a guess costs the same whether its lookup key exists: one lookup, one row, one comparison', async () => {
      const store = await backend.open();
      try {
        const { token, stored } = newToken('ci', 'write');
        assert.equal(await store.addToken(stored), 'added');
        const answers: FoundToken[] = [];
        const recording: AccessStore = {
          addToken: (added) => store.addToken(added),
          listTokens: () => store.listTokens(),
          revokeToken: (name) => store.revokeToken(name),
          hasTokens: () => store.hasTokens(),
          async findToken(lookup) {
            const answer = await store.findToken(lookup);
            answers.push(answer);
            return answer;
          },
        };
        const secret = token.slice(17);
        const otherSecret = secret.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'));
        const knownKey = `${token.slice(0, 17)}${otherSecret}`;
        const unknownKey = `glos_${'Z'.repeat(12)}${secret}`;
        assert.equal(await verifyToken(recording, knownKey), undefined);
        assert.equal(await verifyToken(recording, unknownKey), undefined);
        // Both asked the store once and got a row of the same shape to compare against.
        assert.equal(answers.length, 2);
        const [hit, miss] = answers;
        assert.deepEqual(Object.keys(miss ?? {}).sort(), Object.keys(hit ?? {}).sort());
        assert.equal(miss?.hash.length, hit?.hash.length);
        assert.deepEqual(
          answers.map((answer) => answer.found),
          [true, false],
        );
        assert.deepEqual(await verifyToken(recording, token), {
          name: 'ci',
          kind: 'write',
          createdAt: stored.createdAt,
        });
      } finally {
        await store.close();
      }
    });
  });

  describe(`Authorization over a real socket (${backend.name})`, () => {
    test('two Authorization headers are 400; non-ASCII bytes are an invalid token', async () => {
      const glossary = await listenApp(backend);
      try {
        const token = await tokenFor(glossary.store, 'ci');
        const port = new URL(glossary.url).port;
        const body = JSON.stringify(sampleTerm(5));
        const raw = (headers: string) =>
          rawRequest(
            Number(port),
            `POST /terms HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n${headers}Connection: close\r\n\r\n${body}`,
          );
        const twice = await raw(`Authorization: Bearer ${token}\r\nAuthorization: Bearer x\r\n`);
        assert.match(twice, /^HTTP\/1\.1 400 /);
        assert.match(twice, /more than one Authorization header/);
        const swapped = await raw(`Authorization: Bearer x\r\nAuthorization: Bearer ${token}\r\n`);
        assert.match(swapped, /^HTTP\/1\.1 400 /);
        const latin = await raw(`Authorization: Bearer caf\u00e9\u00ff${token.slice(7)}\r\n`);
        assert.match(latin, /^HTTP\/1\.1 401 /);
        assert.match(latin, /Invalid token/);
        assert.equal((await fetch(`${glossary.url}/terms/5`)).status, 404);
      } finally {
        await glossary.close();
      }
    });
  });
}

/** Sends `text` as latin1 bytes and resolves with everything the server answers. */
function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk) => {
      answer += chunk;
    });
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    // Not half-closed: the server answers, then closes (Connection: close).
    socket.write(Buffer.from(text, 'latin1'));
  });
}
