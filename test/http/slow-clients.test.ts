import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { ConfigError, loadConfig } from '../../src/config.ts';
import type { TermStore } from '../../src/glossary/term-store.ts';
import { type AppConfig, buildApp } from '../../src/http/app.ts';
import { sampleTerm, startApp, TEST_CONFIG } from '../helpers/app.ts';
import { sqliteBackend } from '../helpers/backends.ts';

/**
 * Slow and greedy clients against a real listening server over raw sockets. Nothing here
 * asserts how long anything took: a trickling client must only be cut off eventually (the
 * test's own time limit turns "never" into a failure).
 */

const LIMITS: Partial<AppConfig> = {
  headersTimeoutMs: 1000,
  requestTimeoutMs: 2000,
  idleTimeoutMs: 1500,
  keepAliveTimeoutMs: 1000,
  maxRequestsPerSocket: 2,
  bodyLimit: 64 * 1024,
};
const NEVER = { timeout: 60_000 };

interface Connection {
  socket: net.Socket;
  received(): string;
  closed: Promise<void>;
}

function connect(port: number): Promise<Connection> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    socket.setEncoding('latin1').on('data', (chunk: string) => {
      data += chunk;
    });
    const closed = new Promise<void>((done) => socket.on('close', () => done()));
    socket.on('error', () => {});
    socket.once('connect', () => resolve({ socket, received: () => data, closed }));
    socket.once('error', reject);
  });
}

/** Calls `send` every 100 ms until the connection closes, then stops. */
async function trickle(connection: Connection, send: () => string): Promise<void> {
  const timer = setInterval(() => {
    if (!connection.socket.destroyed) connection.socket.write(send());
  }, 100);
  await connection.closed;
  clearInterval(timer);
}

describe('slow and greedy clients (listening server)', () => {
  let app: FastifyInstance;
  let store: TermStore;
  let port: number;
  before(async () => {
    store = await sqliteBackend.open();
    app = await buildApp({ config: { ...TEST_CONFIG, ...LIMITS }, store, logger: false });
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as net.AddressInfo).port;
  });
  after(async () => {
    await app.close();
    await store.close();
  });

  test('a client trickling its headers forever is cut off', NEVER, async () => {
    const connection = await connect(port);
    connection.socket.write('GET /terms HTTP/1.1\r\nHost: localhost\r\n');
    let n = 0;
    await trickle(connection, () => `X-Slow-${n++}: a\r\n`);
    assert.doesNotMatch(connection.received(), /HTTP\/1\.1 200/);
  });

  test('a client trickling its body forever is cut off with 408', NEVER, async () => {
    const connection = await connect(port);
    connection.socket.write(
      'POST /terms HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{',
    );
    await trickle(connection, () => ' ');
    assert.match(connection.received(), /^HTTP\/1\.1 408/);
    assert.equal(await countTerms(), 0);
  });

  test('a connection that sends nothing is closed', NEVER, async () => {
    const connection = await connect(port);
    await connection.closed;
    assert.equal(connection.received(), '');
  });

  test('an idle keep-alive connection is closed after its response', NEVER, async () => {
    const connection = await connect(port);
    connection.socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await connection.closed;
    assert.match(connection.received(), /^HTTP\/1\.1 200/);
    assert.match(connection.received(), /keep-alive/i);
  });

  test(
    'a keep-alive connection is closed after MAX_REQUESTS_PER_SOCKET requests',
    NEVER,
    async () => {
      const connection = await connect(port);
      const request = 'GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n';
      connection.socket.write(request + request);
      await connection.closed;
      const responses = connection.received().match(/HTTP\/1\.1 \d+/g) ?? [];
      assert.deepEqual(responses, ['HTTP/1.1 200', 'HTTP/1.1 200']);
      assert.match(connection.received(), /connection: close/i);
    },
  );

  test('an endless chunked body is answered 413 while it is still being sent', NEVER, async () => {
    const connection = await connect(port);
    connection.socket.write(
      'POST /terms/bulk HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
    );
    const chunk = `4000\r\n${'['.padEnd(0x4000, ' ')}\r\n`;
    let sent = 0;
    // The body never ends: an answer can only come from a server that stopped reading it.
    while (!connection.received().includes('\r\n\r\n') && !connection.socket.destroyed) {
      sent += 0x4000;
      if (!connection.socket.write(chunk)) {
        await Promise.race([
          new Promise((resolve) => connection.socket.once('drain', resolve)),
          connection.closed,
        ]);
      }
    }
    await new Promise((resolve) => setImmediate(resolve));
    connection.socket.destroy();
    assert.match(connection.received(), /^HTTP\/1\.1 413/);
    assert.match(connection.received(), /"detail":"Request body is larger than the limit/);
    assert.ok(sent > (LIMITS.bodyLimit ?? 0));
  });

  test('a body announced larger than the limit is answered 413 before it is sent', async () => {
    const connection = await connect(port);
    connection.socket.write(
      `POST /terms HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${1024 ** 3}\r\n\r\n`,
    );
    await connection.closed;
    assert.match(connection.received(), /^HTTP\/1\.1 413/);
  });

  async function countTerms(): Promise<number> {
    const response = await fetch(`http://127.0.0.1:${port}/terms`);
    return ((await response.json()) as unknown[]).length;
  }
});

describe('per-client rate limit (RATE_LIMIT)', () => {
  test('is off by default', () => {
    assert.equal(loadConfig({}).rateLimit, null);
  });

  test('parses N/second, N/minute, N/hour and refuses anything else', () => {
    assert.deepEqual(loadConfig({ RATE_LIMIT: '100/minute' }).rateLimit, {
      max: 100,
      windowMs: 60_000,
    });
    assert.deepEqual(loadConfig({ RATE_LIMIT: '5/Second' }).rateLimit, { max: 5, windowMs: 1000 });
    for (const bad of ['100', '0/minute', '10/day', 'lots']) {
      assert.throws(() => loadConfig({ RATE_LIMIT: bad }), ConfigError, bad);
    }
  });

  test('beyond the limit a client gets 429 with Retry-After, and the probes stay open', async () => {
    const t = await startApp(sqliteBackend, { rateLimit: { max: 3, windowMs: 60_000 } });
    try {
      for (let i = 0; i < 3; i++) {
        const ok = await t.app.inject({ method: 'POST', url: '/terms', payload: sampleTerm(i) });
        assert.equal(ok.statusCode, 201);
      }
      const refused = await t.app.inject({ method: 'POST', url: '/terms', payload: sampleTerm(9) });
      assert.equal(refused.statusCode, 429);
      assert.match(refused.json().detail, /^Too many requests/);
      assert.ok(Number(refused.headers['retry-after']) >= 1);
      assert.equal((await t.app.inject({ method: 'GET', url: '/terms/1' })).statusCode, 429);
      assert.equal((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
      assert.equal((await t.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
      const other = await t.app.inject({ method: 'GET', url: '/terms', remoteAddress: '10.0.0.2' });
      assert.equal(other.statusCode, 200);
      assert.equal(other.json().length, 3);
    } finally {
      await t.close();
    }
  });

  test('a path no route matches counts against the limit too', async () => {
    const t = await startApp(sqliteBackend, { rateLimit: { max: 2, windowMs: 60_000 } });
    try {
      const statuses = [];
      for (let i = 0; i < 3; i++) {
        statuses.push((await t.app.inject({ method: 'GET', url: `/nowhere/${i}` })).statusCode);
      }
      assert.deepEqual(statuses, [404, 404, 429]);
      assert.equal((await t.app.inject({ method: 'GET', url: '/terms' })).statusCode, 429);
      const other = await t.app.inject({
        method: 'GET',
        url: '/nowhere',
        remoteAddress: '10.0.0.2',
      });
      assert.equal(other.statusCode, 404);
      assert.deepEqual(other.json(), { detail: 'Not Found' });
    } finally {
      await t.close();
    }
  });
});
