import fastifyStatic from '@fastify/static';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { loadWebPage, type WebFile } from './load-page.ts';
import { WEB_BUNDLE_DIR } from './web-bundle.ts';

export interface WebPageOptions {
  /** The built bundle; defaults to the one `npm install` (`npm run build`) writes. */
  dir?: string;
}

/**
 * The page at `/` must never be stale, so it is revalidated on every load (ETag, 304); its
 * assets carry a content hash in their names, so they are cached for a year.
 */
const PAGE_CACHE = 'no-cache';
const ASSET_CACHE = 'public, max-age=31536000, immutable';
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The glossary's web page and its assets, sent from the bundle's folder by @fastify/static; not
 * part of the API document. Only the files the bundle's manifest names are served, each with a
 * tag of its bytes (the same in every process and every build of the same sources).
 */
export const webPageRoutes: FastifyPluginAsync<WebPageOptions> = async (app, options) => {
  const dir = options.dir ?? WEB_BUNDLE_DIR;
  const web = loadWebPage(dir);
  // Headers and conditional requests are this plugin's: only the bytes are @fastify/static's.
  await app.register(fastifyStatic, {
    root: dir,
    serve: false,
    etag: false,
    lastModified: false,
    cacheControl: false,
    contentType: false,
    acceptRanges: false,
  });
  if (web.stale) {
    app.log.warn(
      'the web page bundle is older than its sources: run `npm run build` to serve the edits',
    );
  }

  app.get('/', { schema: { hide: true } }, async (request, reply) =>
    sendFile(request, reply.header('content-security-policy', CSP), web.page, PAGE_CACHE),
  );

  app.get<{ Params: { file: string } }>(
    '/assets/:file',
    { schema: { hide: true } },
    async (request, reply) => {
      const asset = web.assets.get(request.params.file);
      // The API's JSON 404, from the not-found handler where the app is composed.
      if (!asset) return reply.callNotFound();
      return sendFile(request, reply, asset, ASSET_CACHE);
    },
  );
};

function sendFile(
  request: FastifyRequest,
  reply: FastifyReply,
  file: WebFile,
  cacheControl: string,
): FastifyReply {
  reply
    .header('cache-control', cacheControl)
    .header('etag', file.etag)
    .header('vary', 'accept-encoding')
    .header('x-content-type-options', 'nosniff');
  if (matchesEtag(request.headers['if-none-match'], file.etag)) return reply.code(304).send();
  reply.type(file.contentType);
  if (/\bgzip\b/.test(request.headers['accept-encoding'] ?? '')) {
    return reply.header('content-encoding', 'gzip').sendFile(`${file.file}.gz`);
  }
  return reply.sendFile(file.file);
}

/** `If-None-Match` holds `*` or a list of tags, weak (`W/"..."`) or strong, all compared weakly. */
function matchesEtag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag);
}
