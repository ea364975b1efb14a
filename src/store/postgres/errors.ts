import { StoreUnavailableError } from '../errors.ts';

/**
 * Which PostgreSQL failures mean "the storage cannot serve this now" (503 with Retry-After)
 * rather than "this request broke something" (500). Anything that went wrong while connecting
 * is unavailability; so are lost connections, the server shutting down or starting up, a full
 * disk or too many clients, a read-only server (a standby after failover), and the transient
 * serialization and deadlock failures.
 */

const UNAVAILABLE_CLASSES = ['08', '53', '58'];
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '57P04', '40001', '40P01', '25006']);
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** node-postgres reports a dropped socket and a pool wait timeout by message only. */
const NETWORK_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error/i;

export function isUnavailable(error: unknown): boolean {
  if (error instanceof StoreUnavailableError) return true;
  if (error instanceof AggregateError) return error.errors.some(isUnavailable);
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || UNAVAILABLE_STATES.has(code)) return true;
    if (code.length === 5 && UNAVAILABLE_CLASSES.includes(code.slice(0, 2))) return true;
  }
  return NETWORK_MESSAGES.test(error.message);
}

/** A failure as one readable line; Node reports a refused dual-stack connect with no message. */
export function describeError(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) {
    return describeError(error.errors[0]);
  }
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return error.message || (typeof code === 'string' ? code : error.name);
  }
  return String(error);
}

export function unavailable(error: unknown, where: string): StoreUnavailableError {
  if (error instanceof StoreUnavailableError) return error;
  return new StoreUnavailableError(`postgres ${where}: ${describeError(error)}`, { cause: error });
}

/** Rethrows `error`, as StoreUnavailableError when it is a matter of availability. */
export function rethrow(error: unknown, where: string): never {
  throw isUnavailable(error) ? unavailable(error, where) : error;
}

/** The URL without its password, for messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the configured PostgreSQL database';
  }
}
