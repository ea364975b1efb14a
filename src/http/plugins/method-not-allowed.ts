import http from 'node:http';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { errors, sendError } from '../errors.ts';

export interface MethodNotAllowedOptions {
  /** Registers the API's routes: each path they name answers 405 to the methods it lacks. */
  routes: (app: FastifyInstance) => Promise<void>;
}

/**
 * The API's answers for requests no route takes: a known path asked with another method is
 * 405 with an `Allow` header; a path no route matches is the JSON 404, counted against
 * RATE_LIMIT like any request. Only the routes registered through `routes` are API paths: the
 * page, registered after this plugin, answers another method 404.
 */
export const methodNotAllowed = fp(
  async (app: FastifyInstance, { routes }: MethodNotAllowedOptions) => {
    const allowed = new Map<string, Set<string>>();
    let collecting = true;
    app.addHook('onRoute', (route) => {
      if (!collecting || route.url.startsWith('/docs') || route.url === '*') return;
      const methods = allowed.get(route.url) ?? new Set<string>();
      for (const method of [route.method].flat()) methods.add(method);
      allowed.set(route.url, methods);
    });
    await routes(app);
    collecting = false;
    answerWrongMethods(app, allowed);
    // A path no route matches is counted against the limit too (the limit's hooks are routes').
    app.setNotFoundHandler(
      app.hasDecorator('rateLimit') ? { preHandler: app.rateLimit() } : {},
      (_request, reply) => sendError(errors.routeNotFound(), reply),
    );
  },
  // The API's routes come after every plugin that decides per route as it is registered:
  // the request count, compression, the rate limit, then access.
  {
    name: 'method-not-allowed',
    fastify: '5.x',
    dependencies: ['metrics', 'compression', 'rate-limit', 'access'],
  },
);

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
/**
 * Every other method Node's parser accepts (TRACE, QUERY, PROPFIND, ...) gets the 405 too.
 * OPTIONS belongs to CORS and CONNECT never reaches a route. They are taken as bodiless: a
 * body they carry is never read, only discarded.
 */
const OTHER_METHODS = http.METHODS.filter(
  (method) =>
    !(METHODS as readonly string[]).includes(method) &&
    method !== 'OPTIONS' &&
    method !== 'CONNECT',
);

function answerWrongMethods(app: FastifyInstance, allowed: Map<string, Set<string>>): void {
  for (const method of OTHER_METHODS) {
    app.addHttpMethod(method, { hasBody: false, overrideExisting: true });
  }
  for (const [url, methods] of [...allowed]) {
    const others = [...METHODS, ...OTHER_METHODS].filter((method) => !methods.has(method));
    if (others.length === 0) continue;
    const allow = METHODS.filter((method) => methods.has(method)).join(', ');
    app.route({
      method: others,
      url,
      schema: { hide: true },
      handler: async (_request, reply) => sendError(errors.methodNotAllowed(allow), reply),
    });
  }
}
