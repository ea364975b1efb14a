import { randomUUID } from 'node:crypto';
import http from 'node:http';
import cors from '@fastify/cors';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyServerOptions,
  LogController,
} from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { MAX_SEE_ALSO } from '../glossary/term.ts';
import type { TermStore } from '../glossary/term-store.ts';
import { createLogger } from '../logging.ts';
import { webPageRoutes } from '../page/page-routes.ts';
import { registerAccess } from './access.ts';
import { allowOnlyHosts } from './allowed-hosts.ts';
import { createAuthFailures } from './auth-failures.ts';
import { registerBodyBudget } from './body-budget.ts';
import { registerCompression } from './compression.ts';
import {
  clientErrorHandler,
  errorHandler,
  errors,
  frameworkErrorHandler,
  sendError,
} from './errors.ts';
import { closeOnlyIdleConnections } from './idle-connections.ts';
import { registerJsonBody } from './json-body.ts';
import { registerLingeringClose } from './lingering-close.ts';
import { countRequests, createMetrics, registerMetrics } from './metrics.ts';
import { DOCUMENT_INFO, finishDocument, SECURITY_SCHEMES } from './openapi-document.ts';
import { parseQueryString } from './query-string.ts';
import { limitUnrouted, registerRateLimit } from './rate-limit.ts';
import { healthRoutes } from './routes/health.ts';
import { termEditRoutes } from './routes/term-edits.ts';
import { termRoutes } from './routes/terms.ts';
import { compileRequestValidator } from './validation.ts';

export type AppConfig = Pick<
  Config,
  | 'bodyLimit'
  | 'bodyMemoryLimit'
  | 'maxConnections'
  | 'batchLimit'
  | 'corsOrigins'
  | 'allowedHosts'
  | 'logLevel'
  | 'logFormat'
  | 'headersTimeoutMs'
  | 'requestTimeoutMs'
  | 'idleTimeoutMs'
  | 'keepAliveTimeoutMs'
  | 'maxRequestsPerSocket'
  | 'rateLimit'
  | 'authFailureLimit'
  | 'readAccess'
>;

export interface AppOptions {
  config: AppConfig;
  store: TermStore;
  /** Defaults to the service's logger (`config.logLevel`, `config.logFormat`); `false` silences it (tests). */
  logger?: FastifyServerOptions['logger'];
  /** The service's logger when the entry point made it first (to hand the store a `warn`). */
  loggerInstance?: Logger;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;
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
];

/**
 * The whole HTTP service, ready for `inject()` or `listen()`. It never listens, reads the
 * environment or opens storage: the entry point does, and hands the store in.
 */
export async function buildApp({
  config,
  store: untimed,
  logger,
  loggerInstance,
}: AppOptions): Promise<FastifyInstance> {
  const metrics = createMetrics(untimed);
  const store = metrics.store;
  const app = Fastify({
    ...(logger === undefined
      ? { loggerInstance: (loggerInstance ?? createLogger(config)) as FastifyBaseLogger }
      : { logger }),
    bodyLimit: config.bodyLimit,
    // Slow or greedy clients are cut off; these only act once the app listens.
    http: {
      headersTimeout: config.headersTimeoutMs,
      // Node checks the header and request timeouts on this interval (30 s by default).
      connectionsCheckingInterval: Math.min(1000, config.headersTimeoutMs),
    },
    requestTimeout: config.requestTimeoutMs,
    connectionTimeout: config.idleTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    maxRequestsPerSocket: config.maxRequestsPerSocket,
    // One log line per request, written by logEachRequest below.
    logController: new LogController({ disableRequestLogging: true }),
    routerOptions: {
      ignoreTrailingSlash: true,
      maxParamLength: 500,
      querystringParser: parseQueryString,
    },
    // A URL the router cannot decode or route never reaches a route or the error handler.
    frameworkErrors: frameworkErrorHandler,
    clientErrorHandler,
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(compileRequestValidator);
  app.setErrorHandler(errorHandler);
  // A full batch: each term's five fields and a full see_also list, with room to spare.
  registerJsonBody(app, { maxValues: config.batchLimit * (8 + MAX_SEE_ALSO) + 1000 });
  registerBodyBudget(app, { bytes: config.bodyMemoryLimit });
  app.server.maxConnections = config.maxConnections;
  closeOnlyIdleConnections(app);
  registerLingeringClose(app, { bytes: config.bodyLimit * 4, ms: config.requestTimeoutMs });

  // Per-request hooks are plain callbacks, not async functions: they run on every request, and
  // a promise each is measurable at tens of thousands of requests per second.
  inOrderPerConnection(app);
  countRequests(app, metrics);
  if (config.allowedHosts !== '*') allowOnlyHosts(app, config.allowedHosts);
  // Once shutdown has begun, a keep-alive connection is closed after its request: otherwise
  // an idle client connection would hold the shutdown open until the client drops it.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  logEachRequest(app);

  await app.register(cors, {
    origin: config.corsOrigins === '*' ? '*' : config.corsOrigins,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    exposedHeaders: EXPOSED_HEADERS,
    // An OPTIONS request that is not a CORS preflight is a plain question about the
    // resource: 204 with the CORS headers, not a text/plain 400.
    strictPreflight: false,
  });

  await registerCompression(app);
  // The rate limit before access: both add their hooks to each route as it is registered, in
  // this order, so every request counts, a refused one too, and a client over its limit is
  // answered 429 before its token is looked at.
  if (config.rateLimit) await registerRateLimit(app, config.rateLimit);
  registerAccess(app, {
    store,
    readAccess: config.readAccess,
    failures: config.authFailureLimit && createAuthFailures(config.authFailureLimit),
  });
  // A path no route matches is counted against the limit too (the plugin's hooks are routes').
  app.setNotFoundHandler(
    config.rateLimit ? { preHandler: limitUnrouted(app) } : {},
    (_request, reply) => sendError(errors.routeNotFound(), reply),
  );

  await app.register(swagger, {
    exposeHeadRoutes: true,
    transformObject: (documents) =>
      'openapiObject' in documents
        ? finishDocument(documents.openapiObject)
        : documents.swaggerObject,
    openapi: {
      openapi: '3.1.0',
      servers: [{ url: '/', description: 'The service that serves this document' }],
      components: { securitySchemes: SECURITY_SCHEMES },
      info: DOCUMENT_INFO,
      tags: [
        { name: 'terms', description: 'The glossary' },
        { name: 'operations', description: 'Probes for orchestrators' },
      ],
    },
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP: true,
    // Served over plain http on any host name, the reference must not ask the browser to
    // upgrade its own requests to https (it would load nothing).
    transformStaticCSP: (header) => header.replace(/\s*upgrade-insecure-requests;?/, ''),
    theme: { title: 'Technical Terms Glossary: API reference' },
  });

  const allowed = collectMethods(app);
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  registerMetrics(app, metrics);
  await app.register(termRoutes, { store, batchLimit: config.batchLimit });
  await app.register(termEditRoutes, { store });
  await app.register(healthRoutes, { store });
  answerWrongMethods(app, allowed);
  await app.register(webPageRoutes); // after the 405 table: the page is not an API path
  return app;
}

/**
 * One log line per request, once it is answered (with Fastify's own request logging off):
 * method, URL, status, client address and time taken, beside the request id.
 */
export function logEachRequest(app: FastifyInstance): void {
  app.addHook('onResponse', (request, reply, done) => {
    request.log.info(
      {
        method: request.method,
        url: request.url,
        statusCode: reply.statusCode,
        remoteAddress: request.ip,
        responseTimeMs: Math.round(reply.elapsedTime * 100) / 100,
      },
      'request completed',
    );
    done();
  });
}

/**
 * Requests on one connection take effect in the order they were sent (RFC 9112 §9.3.2): Node
 * parses pipelined requests as they arrive and would run their handlers side by side, so a
 * GET could overtake the POST before it, or PostgreSQL commit ten POSTs out of order. Each
 * request waits until the one before it on its connection has been answered; a connection
 * without pipelining never waits.
 */
function inOrderPerConnection(app: FastifyInstance): void {
  // A connection with a request in progress maps to the requests waiting behind it.
  const waiting = new WeakMap<object, (() => void)[]>();
  app.addHook('onRequest', (request, reply, done) => {
    const connection = request.raw.socket ?? request.raw;
    reply.raw.once('close', () => {
      const next = waiting.get(connection)?.shift();
      if (next) next();
      else waiting.delete(connection);
    });
    const queue = waiting.get(connection);
    if (queue) queue.push(done);
    else {
      waiting.set(connection, []);
      done();
    }
  });
}

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

/** Records, for each API path registered after this call, the methods it answers. */
function collectMethods(app: FastifyInstance): Map<string, Set<string>> {
  const allowed = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs') || route.url === '*') return;
    const methods = allowed.get(route.url) ?? new Set<string>();
    for (const method of [route.method].flat()) methods.add(method);
    allowed.set(route.url, methods);
  });
  return allowed;
}

/** A known path asked with another method answers 405 with an `Allow` header, not 404. */
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
