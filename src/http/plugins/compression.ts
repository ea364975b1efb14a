import { constants } from 'node:zlib';
import compress from '@fastify/compress';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * Lists are compressed when the client asks (`Accept-Encoding: br` or `gzip`) and the answer
 * is over 1 KiB; a streamed list is compressed as it streams. Only lists: their ETag is weak
 * (the revision and the query, not the bytes), while a term's strong ETag names its exact
 * bytes, which one tag for two encodings would break. Brotli at quality 4 compresses about as
 * well as gzip's default at a fraction of brotli's default cost. Request bodies are never
 * decompressed (see json-body.ts).
 */
export const LIST_COMPRESSION = {
  threshold: 1024,
  encodings: ['br' as const, 'gzip' as const],
  brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } },
  zlibOptions: { level: 6 },
};

export const compression = fp(registerCompression, { name: 'compression', fastify: '5.x' });

async function registerCompression(app: FastifyInstance): Promise<void> {
  // Only routes that name compression get the plugin's per-request hook; the others (every
  // route but the list) would run it on each request for nothing. This runs before the
  // plugin's own `onRoute`.
  app.addHook('onRoute', (route) => {
    if (route.compress === undefined) route.compress = false;
  });
  await app.register(compress, {
    globalCompression: false,
    globalDecompression: false,
    ...LIST_COMPRESSION,
  });
}
