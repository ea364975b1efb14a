import { normalizeIP } from '@fastify/rate-limit';
import type { FastifyRequest } from 'fastify';

/**
 * Per-client counts for the limits (RATE_LIMIT, AUTH_FAILURE_LIMIT), kept in one process: this
 * one, or the primary for every worker. Their times are the process's monotonic clock
 * (`performance.now()`): a wall clock set back or forward neither stretches nor ends a window.
 */

/** Most clients counted at once; past it the oldest windows are forgotten first. */
export const MAX_CLIENTS = 100_000;

/**
 * The client a limit counts: its IP address, an IPv6 one by its /64 (one host holds a whole
 * /64), as @fastify/rate-limit counts for RATE_LIMIT.
 */
export function clientOf(request: FastifyRequest): string {
  return normalizeIP(request.ip);
}

export interface Count {
  current: number;
  /** Milliseconds left in the window. */
  ttl: number;
}

/** Events per client in fixed windows that start with each client's first event. */
export class Windows {
  // In the order the windows started: a window that starts again is moved to the end.
  private readonly windows = new Map<string, { current: number; start: number }>();

  count(key: string, windowMs: number): Count {
    const now = performance.now();
    this.forgetOld(now, windowMs);
    let window = this.windows.get(key);
    if (window === undefined || window.start + windowMs <= now) {
      this.windows.delete(key);
      window = { current: 0, start: now };
      this.windows.set(key, window);
    }
    window.current += 1;
    return { current: window.current, ttl: window.start + windowMs - now };
  }

  /** The count so far in the client's window, without counting. */
  peek(key: string, windowMs: number): Count {
    const now = performance.now();
    const window = this.windows.get(key);
    if (window === undefined || window.start + windowMs <= now) return { current: 0, ttl: 0 };
    return { current: window.current, ttl: window.start + windowMs - now };
  }

  private forgetOld(now: number, windowMs: number): void {
    for (const [oldest, window] of this.windows) {
      if (window.start + windowMs > now && this.windows.size < MAX_CLIENTS) break;
      this.windows.delete(oldest);
    }
  }
}

/** Keys remembered until a time each; past MAX_CLIENTS the oldest are forgotten first. */
export class Remembered {
  // In the order they were last remembered.
  private readonly until = new Map<string, number>();

  remember(key: string, ms: number): void {
    const now = performance.now();
    for (const [oldest, until] of this.until) {
      if (until > now && this.until.size < MAX_CLIENTS) break;
      this.until.delete(oldest);
    }
    this.until.delete(key);
    this.until.set(key, now + ms);
  }

  /** Milliseconds the key is still remembered for; 0 when it is not. */
  left(key: string): number {
    return Math.max(0, (this.until.get(key) ?? 0) - performance.now());
  }
}
