import fastifyCors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

const EXPOSED_HEADERS = [
  'x-request-id',
  'retry-after',
  'allow',
  'etag',
  'link',
  'x-total-count',
  'location',
  'www-authenticate',
  'accept-patch',
  'content-disposition',
  'warning',
];

/** CORS_ORIGINS: which web origins may call the API from a browser, and what they may read. */
export const cors = fp(
  async (app: FastifyInstance, { origins }: { origins: '*' | string[] }) => {
    await app.register(fastifyCors, {
      origin: origins,
      methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
      exposedHeaders: EXPOSED_HEADERS,
      // An OPTIONS request that is not a CORS preflight is a plain question about the
      // resource: 204 with the CORS headers, not a text/plain 400.
      strictPreflight: false,
    });
  },
  // Its OPTIONS route is counted like any other.
  { name: 'cors', fastify: '5.x', dependencies: ['metrics'] },
);
