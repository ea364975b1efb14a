import cluster from 'node:cluster';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, preHandlerHookHandler } from 'fastify';
import type { RateLimit } from '../config.ts';
import { errors } from './errors.ts';

/** Routes that answer whatever the limit: orchestrators' probes and scrapes are never refused. */
const UNLIMITED = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * The optional per-client limit (RATE_LIMIT): each client IP address gets `max` requests per
 * window; beyond that, 429 `{"detail"}` with `Retry-After`, before the body is read. With
 * WORKERS > 1 the primary keeps the one count per client (`answerRateLimits`), so a client
 * gets `max` requests in all, whichever workers answer them.
 */
export async function registerRateLimit(app: FastifyInstance, limit: RateLimit): Promise<void> {
  await app.register(rateLimit, {
    global: true,
    max: limit.max,
    timeWindow: limit.windowMs,
    hook: 'onRequest',
    store: cluster.isWorker ? PrimaryCounts : LocalCounts,
    // Should the primary not answer (it is stopping), a request goes through rather than fail.
    skipOnError: true,
    allowList: (request) => UNLIMITED.has(request.routeOptions.url ?? ''),
    errorResponseBuilder: (_request, context) =>
      errors.tooManyRequests(limit.max, limit.windowMs, context.ttl),
  });
}

/**
 * The limit for requests no route matches (the not-found handler's), which the plugin's route
 * hooks do not see; the same count per client as every route's.
 */
export function limitUnrouted(app: FastifyInstance): preHandlerHookHandler {
  return app.rateLimit();
}

interface Count {
  current: number;
  ttl: number;
}
type Callback = (error: Error | null, count?: Count) => void;

/** Most clients counted at once; past it the oldest windows are forgotten first. */
const MAX_CLIENTS = 100_000;

/** Requests per client in fixed windows that start with each client's first request. */
class Windows {
  // In the order the windows started: a window that starts again is moved to the end.
  private readonly windows = new Map<string, { current: number; start: number }>();

  count(key: string, windowMs: number): Count {
    const now = Date.now();
    for (const [oldest, window] of this.windows) {
      if (window.start + windowMs > now && this.windows.size < MAX_CLIENTS) break;
      this.windows.delete(oldest);
    }
    let window = this.windows.get(key);
    if (window === undefined || window.start + windowMs <= now) {
      this.windows.delete(key);
      window = { current: 0, start: now };
      this.windows.set(key, window);
    }
    window.current += 1;
    return { current: window.current, ttl: window.start + windowMs - now };
  }
}

/** The plugin's store interface, counting in this process. */
class LocalCounts {
  private readonly windows = new Windows();

  incr(key: string, callback: Callback, windowMs: number): void {
    callback(null, this.windows.count(key, windowMs));
  }

  child(): this {
    return this;
  }
}

const ASK = 'glossary:rate-limit';
const ANSWER = 'glossary:rate-limit-answer';
const pending = new Map<number, { callback: Callback; timer: NodeJS.Timeout }>();
let asked = 0;
let listening = false;

/** The plugin's store interface in a worker: the primary counts for every worker. */
class PrimaryCounts {
  incr(key: string, callback: Callback, windowMs: number): void {
    if (!listening) {
      listening = true;
      process.on('message', (message: { type?: string; id?: number; count?: Count }) => {
        if (message?.type !== ANSWER || message.id === undefined) return;
        const waiting = pending.get(message.id);
        if (waiting === undefined) return;
        pending.delete(message.id);
        clearTimeout(waiting.timer);
        waiting.callback(null, message.count);
      });
    }
    const id = asked++;
    const timer = setTimeout(() => {
      pending.delete(id);
      callback(new Error('the primary did not answer the rate limit count in time'));
    }, 2000);
    pending.set(id, { callback, timer });
    process.send?.({ type: ASK, id, key, windowMs });
  }

  child(): this {
    return this;
  }
}

/** In the primary: one count per client for all workers. */
export function answerRateLimits(): void {
  const windows = new Windows();
  cluster.on(
    'message',
    (worker, message: { type?: string; id?: number; key?: string; windowMs?: number }) => {
      if (message?.type !== ASK || typeof message.key !== 'string') return;
      const count = windows.count(message.key, Number(message.windowMs));
      if (worker.isConnected()) worker.send({ type: ANSWER, id: message.id, count });
    },
  );
}
