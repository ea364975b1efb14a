import os from 'node:os';
import type { FastifyBaseLogger } from 'fastify';

/**
 * Where a person finds what the service serves once it listens: the page and the API
 * reference. Said as a log line (standard output stays JSON lines, one per record; on a
 * terminal the readable format shows the sentence), after `ready`, by the one process that
 * says `ready` (the primary, with WORKERS > 1).
 */
export interface StartAddresses {
  page: string;
  docs: string;
  /** With a wildcard HOST: the address by this machine's name, for other machines. */
  elsewhere?: string;
}

/** A wildcard address listens everywhere but is no address to browse to. */
const WILDCARDS: Record<string, string> = { '0.0.0.0': '127.0.0.1', '::': '[::1]' };

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * `allowed` (ALLOWED_HOSTS): a name the service answers to, not an address it would answer
 * `421 Misdirected Request`; `localhost` for the loopback address when it is allowed.
 */
export function startAddresses(
  host: string,
  port: number,
  hostname: string = os.hostname(),
  allowed: '*' | readonly string[] = '*',
): StartAddresses {
  const answers = (name: string) => allowed === '*' || allowed.includes(name.toLowerCase());
  const address = WILDCARDS[host] ?? (host.includes(':') ? `[${host}]` : host);
  const local = answers(address)
    ? address
    : LOOPBACK.has(address) && answers('localhost')
      ? 'localhost'
      : (allowed[0] ?? address);
  const base = `http://${local}:${port}`;
  const addresses: StartAddresses = { page: `${base}/`, docs: `${base}/docs` };
  const named = answers(hostname)
    ? hostname
    : allowed === '*'
      ? undefined
      : allowed.find((name) => !LOOPBACK.has(name));
  if (WILDCARDS[host] !== undefined && named) addresses.elsewhere = `http://${named}:${port}/`;
  return addresses;
}

export function logStartAddresses(
  log: FastifyBaseLogger,
  host: string,
  port: number,
  allowed: '*' | readonly string[] = '*',
): void {
  const addresses = startAddresses(host, port, os.hostname(), allowed);
  const elsewhere = addresses.elsewhere
    ? `  (HOST=${host}: from another machine, ${addresses.elsewhere})`
    : '';
  log.info(
    addresses,
    `Glossary page: ${addresses.page}  API reference: ${addresses.docs}${elsewhere}`,
  );
}
