import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import type { RateLimit } from '../config.ts';
import { errors } from './errors.ts';

/** Routes that answer whatever the limit: orchestrators' probes and scrapes are never refused. */
const UNLIMITED = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * The optional per-client limit (RATE_LIMIT): each client IP address gets `max` requests per
 * window; beyond that, 429 `{"detail"}` with `Retry-After`, before the body is read.
 */
export async function registerRateLimit(app: FastifyInstance, limit: RateLimit): Promise<void> {
  await app.register(rateLimit, {
    global: true,
    max: limit.max,
    timeWindow: limit.windowMs,
    hook: 'onRequest',
    allowList: (request) => UNLIMITED.has(request.routeOptions.url ?? ''),
    errorResponseBuilder: (_request, context) =>
      errors.tooManyRequests(limit.max, limit.windowMs, context.ttl),
  });
}
