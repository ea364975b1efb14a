import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { errors, sendError } from '../errors.ts';

/** Asked by address, not by name (orchestrators' probes, scrapers): answered for any host. */
const ANY_HOST = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * ALLOWED_HOSTS: when set, a request whose Host header names another host is answered 421
 * before anything else runs. A page on another site can make a browser on the intranet send
 * requests to this service under that site's own name (DNS rebinding); those name the
 * attacker's host and are refused.
 */
export const allowedHosts = fp(
  async (app: FastifyInstance, { hosts }: { hosts: '*' | readonly string[] }) => {
    if (hosts !== '*') allowOnlyHosts(app, hosts);
  },
  { name: 'allowed-hosts', fastify: '5.x', dependencies: ['per-connection-order'] },
);

function allowOnlyHosts(app: FastifyInstance, hosts: readonly string[]): void {
  const allowed = new Set(hosts);
  app.addHook('onRequest', (request, reply, done) => {
    if (ANY_HOST.has(request.routeOptions.url ?? '')) {
      done();
      return;
    }
    const host = hostName(request.headers.host ?? '');
    if (allowed.has(host)) {
      done();
      return;
    }
    sendError(errors.unknownHost(host), reply);
  });
}

/** The host of a Host header, lower case, without its port (`[::1]:8000` is `[::1]`). */
function hostName(header: string): string {
  const host = header.trim().toLowerCase();
  const port = /:\d*$/.exec(host);
  return port && !host.endsWith(']') ? host.slice(0, port.index) : host;
}
