import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { deliveredBytes } from '../node-internals/socket.ts';

/**
 * The connection limits that act once the app listens: at most MAX_CONNECTIONS at once, and
 * IDLE_TIMEOUT_MS closing connections on which nothing moves (the header, request and
 * keep-alive timeouts are the server's own options, set where the app is made).
 */
export const transportLimits = fp(
  async (app: FastifyInstance, { maxConnections }: { maxConnections: number }) => {
    app.server.maxConnections = maxConnections;
    closeOnlyIdleConnections(app);
  },
  { name: 'transport-limits', fastify: '5.x' },
);

/**
 * IDLE_TIMEOUT_MS closes connections on which nothing moves, and only those. Node calls a
 * connection idle when no write of its has completed for that long; a client reading a long
 * list slowly but steadily drains the kernel's buffers a little at a time, which Node does
 * not see, and would be cut off mid-list. When the timeout fires, a connection whose client
 * has taken more bytes (or sent more) since the last time is given another period; one that
 * moved nothing is closed, as before.
 */
function closeOnlyIdleConnections(app: FastifyInstance): void {
  const seen = new WeakMap<Socket, number>();
  app.server.on('timeout', (socket: Socket) => {
    const moved = socket.bytesRead + deliveredBytes(socket);
    if (moved !== (seen.get(socket) ?? 0)) {
      seen.set(socket, moved);
      // Armed again: the next period starts now.
      socket.setTimeout(app.initialConfig.connectionTimeout ?? 0);
      return;
    }
    socket.destroy();
  });
}
