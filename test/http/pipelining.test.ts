import assert from 'node:assert/strict';
import net from 'node:net';
import { describe, test } from 'node:test';
import { backends } from '../helpers/backends.ts';
import { listenApp } from '../helpers/listening-app.ts';

/** Writes all `requests` at once on one connection; resolves with the answers, in order. */
function pipelined(
  url: string,
  requests: string[],
): Promise<{ status: number; headers: string; body: string }[]> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
      const answers = parse(received);
      if (answers.length === requests.length) {
        socket.destroy();
        resolve(answers);
      }
    });
    socket.on('error', reject);
    socket.setTimeout(20_000, () => socket.destroy(new Error(`timed out; received ${received}`)));
    socket.write(requests.join(''));
  });
}

function parse(text: string) {
  const answers: { status: number; headers: string; body: string }[] = [];
  let rest = text;
  for (;;) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) return answers;
    const headers = rest.slice(0, end);
    const length = Number(/content-length: (\d+)/i.exec(headers)?.[1] ?? 0);
    if (rest.length < end + 4 + length) return answers;
    answers.push({
      status: Number(headers.split(' ')[1]),
      headers,
      body: rest.slice(end + 4, end + 4 + length),
    });
    rest = rest.slice(end + 4 + length);
  }
}

function post(path: string, body: unknown): string {
  const json = JSON.stringify(body);
  return `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`;
}
const get = (path: string, headers = '') => `GET ${path} HTTP/1.1\r\nHost: x\r\n${headers}\r\n`;
const term = (id: number) => ({
  id,
  term: `Term ${id}`,
  definition: 'Pipelined.',
  category: 'backend',
});

for (const backend of backends()) {
  describe(`pipelined requests take effect in order (${backend.name})`, () => {
    test('a GET right behind the POST of its term finds it, 20 rounds of 20', async () => {
      const glossary = await listenApp(backend);
      try {
        for (let round = 0; round < 20; round += 1) {
          const requests = Array.from({ length: 10 }, (_, i) => round * 10 + i).flatMap((id) => [
            post('/terms', term(id)),
            get(`/terms/${id}`),
          ]);
          const answers = await pipelined(glossary.url, requests);
          assert.deepEqual(
            answers.map((answer) => answer.status),
            requests.map((_, i) => (i % 2 === 0 ? 201 : 200)),
          );
        }
        // And they were stored in the order they were sent.
        const listed = (await (await fetch(`${glossary.url}/terms`)).json()) as { id: number }[];
        assert.deepEqual(
          listed.map((t) => t.id),
          Array.from({ length: 200 }, (_, i) => i),
        );
      } finally {
        await glossary.close();
      }
    });

    test('a conditional GET right behind a change is never a stale 304', async () => {
      const glossary = await listenApp(backend);
      try {
        await fetch(`${glossary.url}/terms`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(term(1)),
        });
        const list = await fetch(`${glossary.url}/terms`);
        const etag = list.headers.get('etag') ?? '';
        const answers = await pipelined(glossary.url, [
          post('/terms', term(2)),
          get('/terms', `If-None-Match: ${etag}\r\n`),
        ]);
        assert.equal(answers[0]?.status, 201);
        assert.equal(answers[1]?.status, 200);
        assert.deepEqual(
          (JSON.parse(answers[1]?.body ?? '[]') as { id: number }[]).map((t) => t.id),
          [1, 2],
        );
      } finally {
        await glossary.close();
      }
    });
  });
}
