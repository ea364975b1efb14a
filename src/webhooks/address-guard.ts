import dns from 'node:dns';
import type { LookupFunction, Socket } from 'node:net';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * No server-side request forgery through a webhook: a delivery goes only to a public unicast
 * address (ipaddr.js's `unicast` range, IPv4-mapped IPv6 taken as the IPv4 it maps). Loopback,
 * private, link-local (the cloud metadata address 169.254.169.254 among them), unique-local,
 * carrier-grade NAT, unspecified, broadcast, multicast and reserved addresses are refused.
 *
 * Checked on the address actually connected to, three times over: an IP literal before
 * connecting (Node calls no lookup for one), every address a name resolves to inside the
 * connection's own lookup (so a name that resolves elsewhere later is checked again at each
 * attempt, and no second resolution can differ from the one checked), and the socket's remote
 * address once connected. Redirects are never followed (send.ts).
 */
export class RefusedAddressError extends Error {
  constructor(
    readonly address: string,
    range: string,
  ) {
    super(`refused: ${address} is ${rangeName(range)} (WEBHOOK_ALLOW_PRIVATE=true allows it)`);
    this.name = 'RefusedAddressError';
  }
}

/** ipaddr.js's range names as a sentence says them. */
const RANGE_NAMES: Record<string, string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  linkLocal: 'a link-local address (the cloud metadata address among them)',
  uniqueLocal: 'a unique-local address',
  carrierGradeNat: 'a carrier-grade NAT address',
  unspecified: 'the unspecified address',
  broadcast: 'a broadcast address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
  invalid: 'not an IP address',
  unknown: 'an address that could not be told',
};

/** How a message names the range of a refused address. */
export function rangeName(range: string): string {
  return RANGE_NAMES[range] ?? `an address of the ${range} range`;
}

/** The range that makes `address` refused, or undefined when it may be connected to. */
export function refusedRange(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return 'invalid';
  const range = ipaddr.process(address).range();
  return range === 'unicast' ? undefined : range;
}

function check(address: string): void {
  const range = refusedRange(address);
  if (range !== undefined) throw new RefusedAddressError(address, range);
}

/** A URL's host as an IP address when it is one (brackets of an IPv6 literal removed). */
function literalAddress(hostname: string): string | undefined {
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) ? bare : undefined;
}

/** Throws `RefusedAddressError` when the URL's host is a refused IP literal. */
export function checkLiteralHost(url: URL): void {
  const literal = literalAddress(url.hostname);
  if (literal !== undefined) check(literal);
}

/**
 * A `lookup` for `http.request()`: resolves as Node would (every address, or the first when
 * not asked for all) and fails with `RefusedAddressError` when any address is refused: a name
 * that mixes public and private addresses is refused as a whole.
 */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) {
      callback(error, '', 0);
      return;
    }
    try {
      for (const { address } of addresses) check(address);
    } catch (refused) {
      callback(refused as NodeJS.ErrnoException, '', 0);
      return;
    }
    if (options.all) {
      (callback as unknown as (e: null, all: dns.LookupAddress[]) => void)(null, addresses);
    } else {
      const first = addresses[0];
      if (first) callback(null, first.address, first.family);
      else
        callback(
          Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }),
          '',
          0,
        );
    }
  });
};

/** The second line: destroys the socket, with `RefusedAddressError`, when it connected to a refused address. */
export function guardSocket(socket: Socket): void {
  const inspect = () => {
    const address = socket.remoteAddress;
    try {
      if (address === undefined) throw new RefusedAddressError('unknown', 'unknown');
      check(address);
    } catch (refused) {
      socket.destroy(refused as Error);
    }
  };
  if (socket.remoteAddress !== undefined && !socket.connecting) inspect();
  else socket.once('connect', inspect);
}
