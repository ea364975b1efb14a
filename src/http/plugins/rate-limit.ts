import cluster from 'node:cluster';
import fastifyRateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { RateLimit } from '../../config.ts';
import { type Count, MAX_CLIENTS, Windows } from '../client-windows.ts';
import { errors } from '../errors.ts';
import { answerWorkers, askPrimary } from '../primary-channel.ts';

/** Routes that answer whatever the limit: orchestrators' probes and scrapes are never refused. */
const UNLIMITED = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * The optional per-client limit (RATE_LIMIT): each client IP address gets `max` requests per
 * window; beyond that, 429 `{"detail"}` with `Retry-After`, before the body is read. With
 * WORKERS > 1 the primary keeps the one count per client (`answerRateLimits`), so a client
 * gets `max` requests in all, whichever workers answer them. Without RATE_LIMIT it adds
 * nothing. Its hooks are added to each route as it is registered, so it comes before access:
 * every request counts, a refused one too, and a client over its limit is answered 429 before
 * its token is looked at.
 */
export const rateLimit = fp(
  async (app: FastifyInstance, { limit }: { limit: RateLimit | null }) => {
    if (limit) await registerRateLimit(app, limit);
  },
  { name: 'rate-limit', fastify: '5.x' },
);

async function registerRateLimit(app: FastifyInstance, limit: RateLimit): Promise<void> {
  await app.register(fastifyRateLimit, {
    global: true,
    max: limit.max,
    timeWindow: limit.windowMs,
    hook: 'onRequest',
    // In one process, the plugin's own store counts (a least-recently-used map of as many
    // clients as the limits remember); in a worker, the primary's count for all workers.
    ...(cluster.isWorker ? { store: PrimaryCounts } : { cache: MAX_CLIENTS }),
    // Should the primary not answer (it is stopping), a request goes through rather than fail.
    skipOnError: true,
    allowList: (request) => UNLIMITED.has(request.routeOptions.url ?? ''),
    errorResponseBuilder: (_request, context) =>
      errors.tooManyRequests(limit.max, limit.windowMs, context.ttl),
  });
}

type Callback = (error: Error | null, count?: Count) => void;

const CHANNEL = 'rate-limit';

/** The plugin's store interface in a worker: the primary counts for every worker. */
class PrimaryCounts {
  incr(key: string, callback: Callback, windowMs: number): void {
    askPrimary<Count>(CHANNEL, { key, windowMs }).then((count) => callback(null, count), callback);
  }

  child(): this {
    return this;
  }
}

/** In the primary: one count per client for all workers. */
export function answerRateLimits(): void {
  const windows = new Windows();
  answerWorkers(CHANNEL, ({ key, windowMs }: { key: string; windowMs: number }) =>
    windows.count(key, Number(windowMs)),
  );
}
