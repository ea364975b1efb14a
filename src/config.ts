import os from 'node:os';
import path from 'node:path';
import {
  SQLITE_SYNCHRONOUS,
  type SqliteSynchronous,
  type StoreLocation,
} from './store/location.ts';

/**
 * The service's configuration: every key is read from the environment here and nowhere else,
 * validated at start-up, and documented in docs/configuration.md (a test keeps the
 * two in step). An empty variable counts as unset.
 */

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface Config {
  port: number;
  host: string;
  database: StoreLocation;
  logLevel: LogLevel;
  logFormat: LogFormat;
  bodyLimit: number;
  bodyMemoryLimit: number;
  maxConnections: number;
  batchLimit: number;
  corsOrigins: '*' | string[];
  allowedHosts: '*' | string[];
  sqliteSynchronous: SqliteSynchronous;
  pgPoolSize: number;
  shutdownTimeoutMs: number;
  workers: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  idleTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxRequestsPerSocket: number;
  rateLimit: RateLimit | null;
  authFailureLimit: RateLimit | null;
  readAccess: ReadAccess;
  webhookAllowPrivate: boolean;
  webhookRetrySchedule: number[];
  webhookTimeoutMs: number;
  changesKeepAliveMs: number;
}

/** Who may read the glossary once a token exists: anyone, or token holders only. */
export const READ_ACCESS = ['public', 'token'] as const;
export type ReadAccess = (typeof READ_ACCESS)[number];

/** At most `max` requests per client (IP address) in each window of `windowMs`. */
export interface RateLimit {
  max: number;
  windowMs: number;
}

export const DEFAULT_SQLITE_PATH = './data/glossary.db';

interface Setting<K extends keyof Config> {
  env: string;
  doc: string;
  default: string;
  parse: (raw: string) => Config[K];
}

type Settings = { [K in keyof Config]: Setting<K> };

class InvalidSetting extends Error {}

function integer(min: number, max: number) {
  return (raw: string): number => {
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      throw new InvalidSetting(`must be a whole number from ${min} to ${max}`);
    }
    return Number(raw);
  };
}

function oneOf<T extends string>(values: readonly T[]) {
  return (raw: string): T => {
    const value = raw.toLowerCase();
    if (!(values as readonly string[]).includes(value)) {
      throw new InvalidSetting(`must be one of ${values.join(', ')}`);
    }
    return value as T;
  };
}

export function parseDatabaseUrl(raw: string): StoreLocation {
  if (/^postgres(ql)?:\/\//i.test(raw)) return { kind: 'postgres', url: raw };
  const sqlite = /^sqlite:(?:\/\/)?(.+)$/i.exec(raw);
  if (sqlite?.[1]) {
    const file = sqlite[1];
    return { kind: 'sqlite', path: file === ':memory:' ? file : path.resolve(file) };
  }
  throw new InvalidSetting('must be sqlite:PATH, postgres://... or postgresql://...');
}

function origins(raw: string): '*' | string[] {
  if (raw.trim() === '*') return '*';
  const list = raw
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  for (const origin of list) {
    if (!/^https?:\/\/[^/\s]+$/i.test(origin)) {
      throw new InvalidSetting(`'${origin}' is not an origin like https://example.org`);
    }
  }
  if (list.length === 0) throw new InvalidSetting('must be * or a comma-separated origin list');
  return list;
}

function hostNames(raw: string): '*' | string[] {
  if (raw.trim() === '*') return '*';
  const list = raw
    .split(',')
    .map((host) => host.trim().toLowerCase())
    .filter(Boolean);
  for (const host of list) {
    if (!/^(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*\.?|\[[0-9a-f:.]+\])$/.test(host)) {
      throw new InvalidSetting(`'${host}' is not a host name like glossary.internal`);
    }
  }
  if (list.length === 0) throw new InvalidSetting('must be * or a comma-separated host list');
  return list;
}

const WINDOWS: Record<string, number> = { second: 1000, minute: 60_000, hour: 3_600_000 };

function rateLimit(raw: string): RateLimit | null {
  if (raw.trim().toLowerCase() === 'off') return null;
  const match = /^\s*(\d{1,9})\s*\/\s*(second|minute|hour)\s*$/i.exec(raw);
  const max = Number(match?.[1]);
  const windowMs = WINDOWS[match?.[2]?.toLowerCase() ?? ''];
  if (!match || max < 1 || windowMs === undefined) {
    throw new InvalidSetting('must be off or N/second, N/minute or N/hour (e.g. 100/minute)');
  }
  return { max, windowMs };
}

function yesNo(raw: string): boolean {
  const value = raw.trim().toLowerCase();
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new InvalidSetting('must be true or false');
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Waits such as `5s,5m,30m,2h`, in milliseconds; each from 1 ms to a day. */
function durations(raw: string): number[] {
  const list = raw.split(',').map((item) => {
    const match = /^\s*(\d{1,9})\s*(ms|s|m|h)\s*$/i.exec(item);
    const ms = Number(match?.[1]) * (UNITS[match?.[2]?.toLowerCase() ?? ''] ?? Number.NaN);
    if (!(ms >= 1 && ms <= 86_400_000)) {
      throw new InvalidSetting(
        `'${item.trim()}' is not a wait like 5s, 5m, 2h or 250ms (from 1ms to 24h); give a comma-separated list`,
      );
    }
    return ms;
  });
  return list;
}

const MAX_WORKERS = 64;

function workerCount(raw: string): number {
  if (raw.toLowerCase() === 'auto') return os.availableParallelism();
  try {
    return integer(1, MAX_WORKERS)(raw);
  } catch {
    throw new InvalidSetting(`must be auto or a whole number from 1 to ${MAX_WORKERS}`);
  }
}

export const SETTINGS: Settings = {
  port: {
    env: 'PORT',
    doc: 'TCP port to listen on (0 picks a free one).',
    default: '8000',
    parse: integer(0, 65535),
  },
  host: {
    env: 'HOST',
    doc: 'Interface to listen on; `0.0.0.0` for all.',
    default: '127.0.0.1',
    parse: (raw) => raw,
  },
  database: {
    env: 'DATABASE_URL',
    doc: 'Where terms are stored: `sqlite:PATH` (a file, created with its folder) or `postgres://user@host/db`.',
    default: `sqlite:${DEFAULT_SQLITE_PATH}`,
    parse: parseDatabaseUrl,
  },
  logLevel: {
    env: 'LOG_LEVEL',
    doc: `Log level: ${LOG_LEVELS.join(', ')}. At \`info\`, one line per request.`,
    default: 'info',
    parse: oneOf(LOG_LEVELS),
  },
  logFormat: {
    env: 'LOG_FORMAT',
    doc: 'How log lines look: `json` (one JSON object a line, ISO times, for collectors), `pretty` (one readable line each), or `auto`: pretty when standard output is a terminal, JSON otherwise.',
    default: 'auto',
    parse: oneOf(LOG_FORMATS),
  },
  bodyLimit: {
    env: 'BODY_LIMIT',
    doc: 'Largest request body in bytes; a larger one is answered 413 and not read further.',
    default: String(16 * 1024 * 1024),
    parse: integer(1024, 1024 * 1024 * 1024),
  },
  bodyMemoryLimit: {
    env: 'BODY_MEMORY_LIMIT',
    doc: 'Most bytes of request bodies one process holds at once, counted as they arrive; a body that would go past it is answered 503 with `Retry-After` and not read further. At least `BODY_LIMIT`.',
    default: String(256 * 1024 * 1024),
    parse: integer(1024, 64 * 1024 * 1024 * 1024),
  },
  maxConnections: {
    env: 'MAX_CONNECTIONS',
    doc: 'Most open client connections one process keeps; a connection beyond it is closed as soon as it is accepted.',
    default: '10000',
    parse: integer(1, 1_000_000),
  },
  batchLimit: {
    env: 'BATCH_LIMIT',
    doc: 'Most terms in one `POST /terms/bulk`; a larger batch is answered 413.',
    default: '10000',
    parse: integer(1, 1_000_000),
  },
  corsOrigins: {
    env: 'CORS_ORIGINS',
    doc: '`*` (any origin) or a comma-separated list of allowed origins.',
    default: '*',
    parse: origins,
  },
  allowedHosts: {
    env: 'ALLOWED_HOSTS',
    doc: '`*` (any), or a comma-separated list of host names (`glossary.internal,localhost`): a request whose `Host` names another is answered 421 (against DNS rebinding). `/healthz`, `/readyz` and `/metrics` answer any host.',
    default: '*',
    parse: hostNames,
  },
  sqliteSynchronous: {
    env: 'SQLITE_SYNCHRONOUS',
    doc: 'SQLite durability: `full` fsyncs every commit (survives power loss); `normal` survives a process crash only.',
    default: 'full',
    parse: oneOf(SQLITE_SYNCHRONOUS),
  },
  pgPoolSize: {
    env: 'PG_POOL_SIZE',
    doc: 'PostgreSQL only: most connections each instance keeps open to the database.',
    default: '10',
    parse: integer(1, 1000),
  },
  shutdownTimeoutMs: {
    env: 'SHUTDOWN_TIMEOUT_MS',
    doc: 'How long a graceful shutdown waits for in-flight requests before exiting anyway.',
    default: '10000',
    parse: integer(0, 600_000),
  },
  workers: {
    env: 'WORKERS',
    doc: `Processes serving HTTP on the one port (node:cluster), each with its own store connection; \`auto\` starts one per CPU core. A worker that dies is replaced. At most ${MAX_WORKERS}.`,
    default: '1',
    parse: workerCount,
  },
  headersTimeoutMs: {
    env: 'HEADERS_TIMEOUT_MS',
    doc: 'A client must send all request headers within this time, or its connection is closed (slow-header attacks).',
    default: '10000',
    parse: integer(1000, 600_000),
  },
  requestTimeoutMs: {
    env: 'REQUEST_TIMEOUT_MS',
    doc: 'A client must send the whole request, body included, within this time, or it is answered 408 and the connection closed.',
    default: '60000',
    parse: integer(1000, 3_600_000),
  },
  idleTimeoutMs: {
    env: 'IDLE_TIMEOUT_MS',
    doc: 'A connection on which nothing moves for this long is closed (a client trickling nothing, or reading nothing).',
    default: '30000',
    parse: integer(1000, 3_600_000),
  },
  keepAliveTimeoutMs: {
    env: 'KEEP_ALIVE_TIMEOUT_MS',
    doc: 'How long an idle keep-alive connection stays open after a response (keep it above a load balancer idle timeout).',
    default: '72000',
    parse: integer(1000, 3_600_000),
  },
  maxRequestsPerSocket: {
    env: 'MAX_REQUESTS_PER_SOCKET',
    doc: 'Most requests served on one keep-alive connection before it is closed; 0 means no limit.',
    default: '0',
    parse: integer(0, 1_000_000),
  },
  rateLimit: {
    env: 'RATE_LIMIT',
    doc: '`off`, or a per-client (IP address) limit such as `100/minute` (`second`, `minute`, `hour`); every request counts, a refused one (401, 404, 422) too; beyond it, 429 with `Retry-After` before the token is looked at. `/healthz`, `/readyz` and `/metrics` are not limited.',
    default: 'off',
    parse: rateLimit,
  },
  authFailureLimit: {
    env: 'AUTH_FAILURE_LIMIT',
    doc: '`off`, or how many failed authentications (`Invalid token.`) a client (IP address) may have in a window, such as `10/minute`; once it has had them, every request of it that presents a token is answered 429 with `Retry-After` until the window ends, except with a token that already succeeded from that address in the last window. Valid tokens never count.',
    default: '10/minute',
    parse: rateLimit,
  },
  readAccess: {
    env: 'READ_ACCESS',
    doc: '`public`: anyone may read; `token`: once a token exists, reading the glossary needs one too (any kind). Writes always need a write token once one exists.',
    default: 'public',
    parse: oneOf(READ_ACCESS),
  },
  webhookAllowPrivate: {
    env: 'WEBHOOK_ALLOW_PRIVATE',
    doc: '`false`: a webhook delivery to a loopback, private, link-local, unique-local or metadata address is refused, checked on the address actually connected to; `true` allows them (tests, internal networks).',
    default: 'false',
    parse: yesNo,
  },
  webhookRetrySchedule: {
    env: 'WEBHOOK_RETRY_SCHEDULE',
    doc: 'How long a failed webhook delivery waits before each retry, comma-separated (`ms`, `s`, `m`, `h`); a longer `Retry-After` from the endpoint wins. After the last retry fails, the endpoint is disabled.',
    default: '5s,5m,30m,2h,5h,10h,10h',
    parse: durations,
  },
  webhookTimeoutMs: {
    env: 'WEBHOOK_TIMEOUT_MS',
    doc: 'How long one webhook delivery attempt may take, connection included, before it counts as failed.',
    default: '10000',
    parse: integer(100, 600_000),
  },
  changesKeepAliveMs: {
    env: 'CHANGES_KEEPALIVE_MS',
    doc: 'How often an open `GET /changes` event stream gets a comment line, so that proxies do not close it as idle.',
    default: '15000',
    parse: integer(100, 600_000),
  },
};

/**
 * A value as an error may show it: the password of anything shaped like a URL with
 * credentials (`postgress://user:secret@host`, misspelt or not) becomes `***`, so a
 * configuration error never puts a secret in a log.
 */
export function withoutSecrets(value: string): string {
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/:@\s]*):[^@\s]*@/i, '$1:***@');
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

/** Reads and validates the whole configuration; every bad value is reported at once. */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): Config {
  const problems: string[] = [];
  const config: Partial<Record<keyof Config, unknown>> = {};
  for (const [key, setting] of Object.entries(SETTINGS) as [
    keyof Config,
    Setting<keyof Config>,
  ][]) {
    const given = env[setting.env];
    const raw = given === undefined || given === '' ? setting.default : given;
    try {
      config[key] = setting.parse(raw);
    } catch (error) {
      if (!(error instanceof InvalidSetting)) throw error;
      problems.push(`${setting.env}=${JSON.stringify(withoutSecrets(raw))} ${error.message}`);
    }
  }
  if (problems.length === 0 && (config.bodyMemoryLimit as number) < (config.bodyLimit as number)) {
    problems.push(
      'BODY_MEMORY_LIMIT must be at least BODY_LIMIT, or no body of the largest size could ever be read',
    );
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config as Config;
}
