import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { tempDir } from '../helpers/backends.ts';
import { eventually } from '../helpers/eventually.ts';
import { type ListeningApp, listenApp } from '../helpers/listening-app.ts';
import { runUntilExit } from '../helpers/server-process.ts';

/**
 * The edges of HTTP that clients meet without meaning to: methods the API does not list,
 * OPTIONS without CORS, requests Node's parser refuses, a body over the limit sent whole
 * anyway, the reference page on a host that is not localhost. All over real sockets.
 */

/** Writes `request` on a fresh connection, then reads until the server closes it. */
function exchange(url: string, request: string | Buffer, { timeoutMs = 15_000 } = {}) {
  const { port } = new URL(url);
  return new Promise<string>((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    let received = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      received += chunk;
    });
    socket.on('close', () => resolve(received));
    socket.on('error', (error) => reject(new Error(`${error.message}; received: ${received}`)));
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error('timed out')));
    socket.write(request);
  });
}

function parse(response: string) {
  const [head = '', body = ''] = response.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = new Map(
    lines.map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()] as const;
    }),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

describe('HTTP edges', () => {
  let glossary: ListeningApp;
  before(async () => {
    glossary = await listenApp();
  });
  after(() => glossary.close());

  for (const method of ['TRACE', 'QUERY', 'PROPFIND', 'M-SEARCH', 'PURGE']) {
    test(`${method} on an API path answers 405 with Allow, as JSON`, async () => {
      for (const [path, allow] of [
        ['/terms', 'GET, HEAD, POST'],
        ['/terms/1', 'GET, HEAD, PUT, PATCH, DELETE'],
      ] as const) {
        const response = parse(
          await exchange(
            glossary.url,
            `${method} ${path} HTTP/1.1\r\nHost: glossary\r\nConnection: close\r\n\r\n`,
          ),
        );
        assert.equal(response.status, 405, `${method} ${path}`);
        assert.equal(response.headers.get('allow'), allow);
        assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
        assert.deepEqual(JSON.parse(response.body), { detail: 'Method Not Allowed' });
      }
    });
  }

  test('QUERY with a body and a content type is 405 too, and nothing is stored', async () => {
    const body = JSON.stringify({ id: 5, term: 'x', definition: 'y', category: 'backend' });
    const response = await fetch(`${glossary.url}/terms`, {
      method: 'QUERY',
      headers: { 'content-type': 'application/json' },
      body,
    });
    assert.equal(response.status, 405);
    assert.equal((await fetch(`${glossary.url}/terms/5`)).status, 404);
  });

  test('OPTIONS without CORS preflight headers is answered, not a text/plain 400', async () => {
    const response = await fetch(`${glossary.url}/terms`, { method: 'OPTIONS' });
    assert.equal(response.status, 204);
    assert.equal(await response.text(), '');
    const preflight = await fetch(`${glossary.url}/terms`, {
      method: 'OPTIONS',
      headers: { origin: 'https://docs.example', 'access-control-request-method': 'PUT' },
    });
    assert.equal(preflight.status, 204);
    assert.match(preflight.headers.get('access-control-allow-methods') ?? '', /PUT/);
  });

  test('requests the parser refuses answer in the contract shape: 400 and 431', async () => {
    const broken = parse(await exchange(glossary.url, 'FOO /terms HTTP/1.1\r\nHost: x\r\n\r\n'));
    assert.equal(broken.status, 400);
    assert.match(broken.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(JSON.parse(broken.body), { detail: 'Bad Request' });

    const big = parse(
      await exchange(
        glossary.url,
        `GET /terms HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      ),
    );
    assert.equal(big.status, 431);
    assert.deepEqual(JSON.parse(big.body), { detail: 'Request Header Fields Too Large' });
    // The answer the OpenAPI document gives as its example, for this operation as for all.
    const documented = (await glossary.app.inject({ url: '/openapi.json' })).json().paths['/terms']
      .get.responses['431'];
    assert.deepEqual(
      JSON.parse(big.body),
      documented?.content['application/json'].examples.headersTooLarge.value,
    );
  });

  test('a body over the limit sent whole is read and answered 413, not a broken pipe', async () => {
    const limit = 16 * 1024 * 1024;
    const size = limit + 4 * 1024 * 1024;
    const head = `POST /terms/bulk HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${size}\r\nConnection: close\r\n\r\n`;
    // The client writes everything before it reads, as Python's urllib does.
    const response = parse(
      await exchange(glossary.url, Buffer.concat([Buffer.from(head), Buffer.alloc(size, 'a')])),
    );
    assert.equal(response.status, 413);
    assert.deepEqual(JSON.parse(response.body), {
      detail: `Request body is larger than the limit of ${limit} bytes.`,
    });
    // And through fetch, which streams the body and reads the answer as it comes.
    const fetched = await fetch(`${glossary.url}/terms/bulk`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'x'.repeat(size),
    });
    assert.equal(fetched.status, 413);
    assert.equal((await fetch(`${glossary.url}/healthz`)).status, 200);
  });

  test('a client that never stops sending past the limit is cut off, bounded', async () => {
    const { port } = new URL(glossary.url);
    const socket = net.connect(Number(port), '127.0.0.1');
    socket.on('error', () => undefined);
    socket.write(
      'POST /terms/bulk HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
    );
    const chunk = Buffer.from(`100000\r\n${'a'.repeat(0x100000)}\r\n`);
    let written = 0;
    const closed = new Promise((resolve) => socket.on('close', resolve));
    while (!socket.destroyed && written < 200 * 0x100000) {
      if (!socket.write(chunk))
        await new Promise((resolve) => socket.once('drain', resolve).once('close', resolve));
      written += 0x100000;
    }
    await closed;
    assert.ok(written < 200 * 0x100000, `the server read ${written} bytes and never closed`);
  });

  test('/docs works on any host name over plain http, titled after the API', async () => {
    const page = await fetch(`${glossary.url}/docs/static/index.html`, {
      headers: { host: 'glossary.intranet:8000' },
    });
    assert.equal(page.status, 200);
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'self'/);
    assert.doesNotMatch(csp, /upgrade-insecure-requests/);
    assert.match(await page.text(), /<title>Technical Terms Glossary: API reference<\/title>/);
  });
});

describe('an impossible database folder', () => {
  test('sqlite:/proc/... fails at once with a message naming the folder', {
    timeout: 30_000,
  }, async () => {
    const exit = await runUntilExit({ DATABASE_URL: 'sqlite:/proc/glossary/g.db' });
    assert.equal(exit.code, 1);
    assert.match(
      exit.stderr,
      /cannot start: cannot create the folder \/proc\/glossary for the database \/proc\/glossary\/g\.db \(ENOENT\)/,
    );
  });

  test('a database that cannot be opened is named in the one line that says so', {
    timeout: 30_000,
  }, async () => {
    const folder = tempDir();
    const file = path.join(folder, 'not-a-folder');
    fs.writeFileSync(file, '');
    for (const [database, reason] of [
      [folder, /EISDIR/],
      [path.join(file, 'g.db'), /unable to open database file/],
    ] as const) {
      const exit = await runUntilExit({ DATABASE_URL: `sqlite:${database}` });
      assert.equal(exit.code, 1);
      assert.equal(exit.stderr.trim().split('\n').length, 1, exit.stderr);
      assert.ok(exit.stderr.includes(`cannot start: ${database}: `), exit.stderr);
      assert.match(exit.stderr, reason);
    }
  });
});

describe('small things hostile clients try', () => {
  let glossary: ListeningApp;
  before(async () => {
    glossary = await listenApp();
  });
  after(() => glossary.close());

  test('a compressed body is refused with 415 and Accept-Encoding: identity, nothing stored', async () => {
    const term = { id: 5, term: 'Zip', definition: 'Compressed.', category: 'backend' };
    const { gzipSync } = await import('node:zlib');
    for (const [encoding, body] of [
      ['gzip', gzipSync(JSON.stringify(term))],
      ['gzip', Buffer.from(JSON.stringify(term))],
      ['br', Buffer.from(JSON.stringify(term))],
    ] as const) {
      const response = await fetch(`${glossary.url}/terms`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': encoding },
        body,
      });
      assert.equal(response.status, 415);
      assert.equal(response.headers.get('accept-encoding'), 'identity');
      assert.deepEqual(await response.json(), {
        detail: `Unsupported Content-Encoding '${encoding}': send the body uncompressed.`,
      });
    }
    assert.equal((await fetch(`${glossary.url}/terms/5`)).status, 404);
    const plain = await fetch(`${glossary.url}/terms`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'identity' },
      body: JSON.stringify(term),
    });
    assert.equal(plain.status, 201);
  });

  test('a value made only of Unicode white space (U+0085, U+3000, ...) is blank', async () => {
    for (const blank of ['\u0085', '\u3000\u0085 ', '\u2028\u00a0']) {
      const response = await fetch(`${glossary.url}/terms`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ id: 9, term: blank, definition: 'x', category: 'backend' }),
      });
      assert.equal(response.status, 422);
      const [fault] = ((await response.json()) as { detail: { loc: unknown[]; type: string }[] })
        .detail;
      assert.deepEqual(fault?.loc, ['body', 'term']);
      assert.equal(fault?.type, 'value_error.any_str.min_length');
    }
    assert.equal((await fetch(`${glossary.url}/terms/9`)).status, 404);
  });
});

describe('bodies shaped to stall the event loop', () => {
  let glossary: ListeningApp;
  before(async () => {
    glossary = await listenApp(undefined, { batchLimit: 100 });
  });
  after(() => glossary.close());

  const send = (path: string, body: string) =>
    fetch(`${glossary.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });

  test('nesting deeper than 32 levels is refused before it is parsed', async () => {
    const depth = 4 * 1024 * 1024;
    for (const path of ['/terms', '/terms/bulk']) {
      const response = await send(path, `${'['.repeat(depth)}${']'.repeat(depth)}`);
      assert.equal(response.status, 422);
      assert.deepEqual(await response.json(), {
        detail: [
          {
            loc: ['body', 32],
            msg: 'JSON decode error: the JSON is nested deeper than 32 levels',
            type: 'value_error.jsondecode',
          },
        ],
      });
    }
    // A string full of brackets is only text.
    const fine = await send(
      '/terms',
      JSON.stringify({
        id: 1,
        term: '['.repeat(100),
        definition: '{'.repeat(1000),
        category: 'backend',
      }),
    );
    assert.equal(fine.status, 201);
  });

  test('more values than any request needs is 413 before it is parsed; a full batch is not', async () => {
    const limit = 100 * (8 + 100) + 1000;
    const manyPairs = `{${Array.from({ length: limit + 2 }, (_, i) => `"k${i}":0`).join(',')}}`;
    for (const body of [
      `[${'1,'.repeat(limit + 1)}1]`,
      `[${'{},'.repeat(limit + 1)}{}]`,
      manyPairs,
    ]) {
      const response = await send('/terms', body);
      assert.equal(response.status, 413);
      assert.deepEqual(await response.json(), {
        detail: `Request body holds more than ${limit} JSON values; no request needs that many.`,
      });
    }
    const full = Array.from({ length: 100 }, (_, i) => ({
      id: 1000 + i,
      term: `Term ${i}`,
      definition: 'A, b, c.',
      category: 'backend',
      see_also: Array.from({ length: 100 }, (_, j) => j),
    }));
    const accepted = await send('/terms/bulk', JSON.stringify(full));
    assert.equal(accepted.status, 207);
    const results = (await accepted.json()) as { status: string }[];
    assert.ok(results.every((result) => result.status === 'created'));
  });
});

describe('memory held by request bodies', () => {
  const bodyLimit = 64 * 1024;
  let glossary: ListeningApp;
  const accepted: net.Socket[] = [];
  before(async () => {
    glossary = await listenApp(undefined, { bodyLimit, bodyMemoryLimit: 100 * 1024 });
    glossary.app.server.on('connection', (socket: net.Socket) => accepted.push(socket));
  });
  after(() => glossary.close());

  /** The server's end of a client's connection. */
  const serverEnd = (client: net.Socket) =>
    accepted.find((socket) => socket.remotePort === client.localPort);

  /** A POST whose body says it holds `length` bytes, of which `sent` are written. */
  const partialPost = (length: number, sent: number) => {
    const head = `POST /terms HTTP/1.1\r\nHost: glossary\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
    const prefix = '{"id":1,"pad":"';
    const body = `${prefix}${'x'.repeat(length - prefix.length - 2)}"}`;
    return `${head}${body.slice(0, sent)}`;
  };

  test('bodies past the budget are answered 503 at once; other requests go on; the budget comes back', async () => {
    const { port } = new URL(glossary.url);
    const holder = net.connect(Number(port), '127.0.0.1');
    const held = partialPost(60_000, 59_999);
    await new Promise<void>((resolve) => holder.write(held, () => resolve()));
    assert.equal((await fetch(`${glossary.url}/healthz`)).status, 200);
    // The server has read all the holder sent (its body's bytes are counted as they arrive).
    await eventually(
      () => serverEnd(holder)?.bytesRead === Buffer.byteLength(held),
      "the server read the holder's bytes",
    );

    const refused = parse(await exchange(glossary.url, partialPost(60_000, 59_999)));
    assert.equal(refused.status, 503);
    assert.equal(refused.headers.get('retry-after'), '1');
    assert.match(JSON.parse(refused.body).detail, /too many request bodies at once/);
    // Reads do not need the budget.
    assert.equal((await fetch(`${glossary.url}/terms`)).status, 200);

    const holderEnd = serverEnd(holder);
    holder.destroy();
    // The budget is given back as the server's end closes.
    await eventually(() => holderEnd?.closed === true, "the server's end of the holder closed");
    // Read whole now (and refused as a term, it is no term): the holder's bytes were given back.
    const whole = parse(await exchange(glossary.url, `${partialPost(60_000, 60_000)}`));
    assert.equal(whole.status, 422);
    assert.deepEqual(await (await fetch(`${glossary.url}/terms`)).json(), []);
  });

  test('a server with no budget to spare still answers small bodies once the big ones end', async () => {
    for (let i = 0; i < 5; i += 1) {
      const response = parse(await exchange(glossary.url, partialPost(60_000, 60_000)));
      assert.equal(response.status, 422, `round ${i}: each body's bytes were given back`);
    }
  });
});

describe('connections past MAX_CONNECTIONS', () => {
  test('are closed as soon as they are accepted; the ones held go on', async () => {
    const glossary = await listenApp(undefined, { maxConnections: 3 });
    const { port } = new URL(glossary.url);
    const open = async () => {
      const socket = net.connect(Number(port), '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      return socket;
    };
    try {
      const held = [await open(), await open(), await open()];
      const extra = await open();
      const received = await new Promise<string>((resolve) => {
        let text = '';
        extra.setEncoding('latin1');
        extra.on('data', (chunk: string) => {
          text += chunk;
        });
        extra.on('close', () => resolve(text));
        extra.on('error', () => undefined);
        extra.write('GET /healthz HTTP/1.1\r\nHost: glossary\r\n\r\n');
      });
      assert.equal(received, '', 'no answer on a connection past the cap');
      const [first] = held;
      const answer = await new Promise<string>((resolve) => {
        first?.setEncoding('latin1');
        first?.once('data', resolve);
        first?.write('GET /healthz HTTP/1.1\r\nHost: glossary\r\n\r\n');
      });
      assert.match(answer, /^HTTP\/1.1 200/);
      for (const socket of held) socket.destroy();
      // The server counts them gone (the extra one was closed on arrival).
      await eventually(
        () =>
          new Promise<boolean>((resolve) =>
            glossary.app.server.getConnections((_error, count) => resolve(count === 0)),
          ),
        'the held connections closed on the server',
      );
      assert.equal(
        (await fetch(`${glossary.url}/healthz`)).status,
        200,
        'room again once they close',
      );
    } finally {
      await glossary.close();
    }
  });
});

describe('ALLOWED_HOSTS', () => {
  let glossary: ListeningApp;
  before(async () => {
    glossary = await listenApp(undefined, { allowedHosts: ['glossary.internal', '[::1]'] });
  });
  after(() => glossary.close());

  const ask = async (path: string, host: string) =>
    parse(
      await exchange(
        glossary.url,
        `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
      ),
    );

  test('a request for another host is 421 before anything runs; the listed ones are served', async () => {
    const refused = await ask('/terms', 'attacker.example:8000');
    assert.equal(refused.status, 421);
    assert.deepEqual(JSON.parse(refused.body), {
      detail: "This service does not answer for the host 'attacker.example' (ALLOWED_HOSTS).",
    });
    assert.equal((await ask('/terms/1', '127.0.0.1')).status, 421, 'an address is not a name');
    assert.equal((await ask('/', 'attacker.example')).status, 421, 'nor the page');
    for (const host of ['glossary.internal', 'GLOSSARY.INTERNAL:8000', '[::1]:8000']) {
      assert.equal((await ask('/terms', host)).status, 200, host);
    }
  });

  test('probes and scrapes that ask by address are answered whatever the host', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      assert.equal((await ask(path, '10.0.0.7:8000')).status, 200, path);
    }
  });
});
