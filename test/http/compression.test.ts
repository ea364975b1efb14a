import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { backends } from '../helpers/backends.ts';
import { listenApp } from '../helpers/listening-app.ts';

/** GET with an Accept-Encoding, the raw bytes kept (Node's fetch would decode them). */
async function raw(url: string, encoding: string) {
  const http = await import('node:http');
  return new Promise<{ headers: Record<string, string | string[] | undefined>; body: Buffer }>(
    (resolve, reject) => {
      http
        .get(url, { headers: { 'accept-encoding': encoding } }, (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () =>
            resolve({ headers: response.headers, body: Buffer.concat(chunks) }),
          );
        })
        .on('error', reject);
    },
  );
}

for (const backend of backends()) {
  describe(`compressed lists (${backend.name})`, () => {
    test('a list over 1 KiB comes as br or gzip when asked, the same JSON; small answers and terms never', async () => {
      const glossary = await listenApp(backend);
      try {
        const terms = Array.from({ length: 3000 }, (_, i) => ({
          id: i,
          term: `Term ${i}`,
          definition: `The definition of term number ${i}, as a glossary would have it.`,
          category: 'backend',
        }));
        const loaded = await fetch(`${glossary.url}/terms/bulk`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(terms),
        });
        assert.equal(loaded.status, 207);
        for (const path of ['/terms?limit=100', '/terms']) {
          const plain = await raw(`${glossary.url}${path}`, 'identity');
          assert.equal(plain.headers['content-encoding'], undefined);
          for (const [encoding, decode] of [
            ['br', brotliDecompressSync],
            ['gzip', gunzipSync],
          ] as const) {
            const packed = await raw(`${glossary.url}${path}`, `${encoding}, deflate`);
            assert.equal(packed.headers['content-encoding'], encoding, `${path} ${encoding}`);
            assert.match(String(packed.headers.vary), /accept-encoding/i);
            assert.ok(packed.body.length * 5 < plain.body.length, 'well compressed');
            assert.deepEqual(
              JSON.parse(decode(packed.body).toString('utf8')),
              JSON.parse(plain.body.toString('utf8')),
            );
          }
        }
        const small = await raw(`${glossary.url}/terms?limit=2`, 'gzip');
        assert.equal(small.headers['content-encoding'], undefined, 'under 1 KiB');
        const term = await raw(`${glossary.url}/terms/5`, 'gzip');
        assert.equal(
          term.headers['content-encoding'],
          undefined,
          'a term keeps its strong ETag bytes',
        );
      } finally {
        await glossary.close();
      }
    });
  });
}
