import http from 'node:http';
import https from 'node:https';
import {
  checkLiteralHost,
  guardedLookup,
  guardSocket,
  RefusedAddressError,
} from './address-guard.ts';

/** What one attempt at a delivery came to. */
export interface SendResult {
  /** The endpoint's HTTP status, or null when none came. */
  status: number | null;
  /** What went wrong (a non-2xx status included), or null on a 2xx. */
  error: string | null;
  /** The address guard refused the endpoint's address: no request was sent. */
  refused: boolean;
  durationMs: number;
  /** The endpoint's `Retry-After` (seconds or an HTTP date), in ms from now; null without one. */
  retryAfterMs: number | null;
}

export interface SendOptions {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** The whole attempt, connecting included. */
  timeoutMs: number;
  /** Off: private addresses are refused (address-guard.ts). */
  allowPrivate: boolean;
  /** Aborts the attempt (the deliverer stopping). */
  signal?: AbortSignal | undefined;
}

/** Of an answer's body only this much is read, then the connection is closed: nobody reads it. */
const BODY_READ = 4096;
/** How long the rest of an answer's body may take to arrive before the connection is closed. */
const BODY_DRAIN_MS = 1000;

/**
 * One POST of a delivery. Never rejects: every failure is a result. A redirect is a failure
 * like any other non-2xx status (following one would reach an address never checked). One
 * connection per attempt (no agent): an attempt's socket is always fresh, so its address is
 * checked, and a stopped endpoint leaves no socket open.
 */
export function send(options: SendOptions): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: Omit<SendResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({ ...result, durationMs: elapsed() });
    };
    const fail = (error: unknown) =>
      finish({
        status: null,
        error: describe(error),
        refused: error instanceof RefusedAddressError,
        retryAfterMs: null,
      });

    let url: URL;
    try {
      url = new URL(options.url);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        throw new Error(`not an http or https URL: ${url.protocol}`);
      }
      if (!options.allowPrivate) checkLiteralHost(url);
    } catch (error) {
      // Nothing was sent: no timer or listener to clear yet.
      settled = true;
      resolve({
        status: null,
        error: describe(error),
        refused: error instanceof RefusedAddressError,
        retryAfterMs: null,
        durationMs: elapsed(),
      });
      return;
    }

    const request = (url.protocol === 'https:' ? https : http).request(url, {
      method: 'POST',
      agent: false,
      headers: {
        ...options.headers,
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(options.body)),
        'user-agent': 'glossary-webhooks',
      },
      ...(options.allowPrivate ? {} : { lookup: guardedLookup }),
    });
    const timer = setTimeout(
      () => request.destroy(new Error(`timed out after ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    const onAbort = () => request.destroy(new Error('the deliverer stopped'));
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });

    if (!options.allowPrivate) request.on('socket', guardSocket);
    request.on('error', fail);
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      const result = {
        status,
        error: status >= 200 && status < 300 ? null : `HTTP ${status}`,
        refused: false,
        retryAfterMs: retryAfter(response.headers['retry-after']),
      };
      // The status is known: the attempt is over, whatever the body does. A little of it is
      // read (a server writing a short body is not cut off mid-write), then the socket goes.
      finish(result);
      let read = 0;
      const drop = () => response.destroy();
      const drain = setTimeout(drop, BODY_DRAIN_MS);
      drain.unref();
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read >= BODY_READ) drop();
      });
      response.on('close', () => clearTimeout(drain));
      response.on('error', () => undefined);
    });
    request.end(options.body);
  });
}

/** `Retry-After` as milliseconds from now: delay-seconds or an HTTP date; null when absent or unreadable. */
export function retryAfter(header: string | undefined, now = Date.now()): number | null {
  if (header === undefined) return null;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

function describe(error: unknown): string {
  if (error instanceof Error)
    return error.message || (error as NodeJS.ErrnoException).code || error.name;
  return String(error);
}
