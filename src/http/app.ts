import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyServerOptions,
  LogController,
} from 'fastify';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { ChangeFollowers } from '../glossary/change-followers.ts';
import { MAX_SEE_ALSO } from '../glossary/term.ts';
import type { TermStore } from '../glossary/term-store.ts';
import { createLogger } from '../logging.ts';
import { webPageRoutes } from '../page/page-routes.ts';
import type { DeliveryCounts } from '../webhooks/delivery-counts.ts';
import { clientErrorHandler, errorHandler, frameworkErrorHandler } from './errors.ts';
import { access } from './plugins/access.ts';
import { allowedHosts } from './plugins/allowed-hosts.ts';
import { bodyBudget } from './plugins/body-budget.ts';
import { compression } from './plugins/compression.ts';
import { cors } from './plugins/cors.ts';
import { jsonBody } from './plugins/json-body.ts';
import { lingeringClose } from './plugins/lingering-close.ts';
import { methodNotAllowed } from './plugins/method-not-allowed.ts';
import { createMetrics, metrics, metricsRoute } from './plugins/metrics.ts';
import { openapi } from './plugins/openapi.ts';
import { perConnectionOrder } from './plugins/per-connection-order.ts';
import { rateLimit } from './plugins/rate-limit.ts';
import { requestLog } from './plugins/request-log.ts';
import { transportLimits } from './plugins/transport-limits.ts';
import { parseQueryString } from './query-string.ts';
import { changeRoutes } from './routes/changes.ts';
import { exportRoutes } from './routes/exports.ts';
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
  | 'changesKeepAliveMs'
>;

export interface AppOptions {
  config: AppConfig;
  store: TermStore;
  /** Defaults to the service's logger (`config.logLevel`, `config.logFormat`); `false` silences it (tests). */
  logger?: FastifyServerOptions['logger'];
  /** The service's logger when the entry point made it first (to hand the store a `warn`). */
  loggerInstance?: Logger;
  /** This process's webhook deliveries by outcome, for /metrics (the entry point runs the deliverer). */
  deliveries?: DeliveryCounts | undefined;
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * The whole HTTP service, ready for `inject()` or `listen()`. It never listens, reads the
 * environment or opens storage: the entry point does, and hands the store in. Each concern is
 * a named plugin (src/http/plugins/) that declares the ones it must follow; Fastify checks
 * that order as they register. Per-request hooks are plain callbacks, not async functions:
 * they run on every request, and a promise each is measurable at tens of thousands of
 * requests per second.
 */
export async function buildApp({
  config,
  store: untimed,
  logger,
  loggerInstance,
  deliveries,
}: AppOptions): Promise<FastifyInstance> {
  const measured = createMetrics(untimed, deliveries);
  const store = measured.store;
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
    // One log line per request, written by the request-log plugin.
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

  // Long polls and event streams wait here; when the service stops, they end first.
  const followers = new ChangeFollowers(store, (error) =>
    app.log.warn({ err: error }, 'reading the change feed failed'),
  );
  app.addHook('preClose', (done) => {
    followers.close();
    done();
  });

  app.setValidatorCompiler(compileRequestValidator);
  app.setErrorHandler(errorHandler);
  // A full batch: each term's five fields and a full see_also list, with room to spare.
  await app.register(jsonBody, { maxValues: config.batchLimit * (8 + MAX_SEE_ALSO) + 1000 });
  await app.register(bodyBudget, { bytes: config.bodyMemoryLimit });
  await app.register(transportLimits, { maxConnections: config.maxConnections });
  await app.register(lingeringClose, {
    bytes: config.bodyLimit * 4,
    ms: config.requestTimeoutMs,
  });
  await app.register(perConnectionOrder);
  await app.register(metrics, { metrics: measured });
  await app.register(allowedHosts, { hosts: config.allowedHosts });
  await app.register(requestLog);
  await app.register(cors, { origins: config.corsOrigins });
  await app.register(compression);
  await app.register(rateLimit, { limit: config.rateLimit });
  await app.register(access, {
    store,
    readAccess: config.readAccess,
    authFailureLimit: config.authFailureLimit,
  });
  await app.register(methodNotAllowed, {
    routes: async (api) => {
      await api.register(openapi);
      await api.register(metricsRoute, { metrics: measured });
      await api.register(termRoutes, { store, batchLimit: config.batchLimit });
      await api.register(termEditRoutes, { store });
      await api.register(exportRoutes, { store });
      await api.register(changeRoutes, {
        store,
        followers,
        keepAliveMs: config.changesKeepAliveMs,
        idleTimeoutMs: config.idleTimeoutMs,
      });
      await api.register(healthRoutes, { store });
    },
  });
  // After the API: the page is not an API path (another method on it is 404, not 405).
  await app.register(webPageRoutes);
  return app;
}
