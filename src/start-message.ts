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

export function startAddresses(
  host: string,
  port: number,
  hostname: string = os.hostname(),
): StartAddresses {
  const local = WILDCARDS[host] ?? (host.includes(':') ? `[${host}]` : host);
  const base = `http://${local}:${port}`;
  const addresses: StartAddresses = { page: `${base}/`, docs: `${base}/docs` };
  if (WILDCARDS[host] !== undefined) addresses.elsewhere = `http://${hostname}:${port}/`;
  return addresses;
}

export function logStartAddresses(log: FastifyBaseLogger, host: string, port: number): void {
  const addresses = startAddresses(host, port);
  const elsewhere = addresses.elsewhere
    ? `  (HOST=${host}: from another machine, ${addresses.elsewhere})`
    : '';
  log.info(
    addresses,
    `Glossary page: ${addresses.page}  API reference: ${addresses.docs}${elsewhere}`,
  );
}
