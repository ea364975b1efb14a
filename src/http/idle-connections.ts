import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * IDLE_TIMEOUT_MS closes connections on which nothing moves, and only those. Node calls a
 * connection idle when no write of its has completed for that long; a client reading a long
 * list slowly but steadily drains the kernel's buffers a little at a time, which Node does
 * not see, and would be cut off mid-list. When the timeout fires, a connection whose client
 * has taken more bytes (or sent more) since the last time is given another period; one that
 * moved nothing is closed, as before.
 */
export function closeOnlyIdleConnections(app: FastifyInstance): void {
  const seen = new WeakMap<Socket, number>();
  app.server.on('timeout', (socket: Socket) => {
    const moved = socket.bytesRead + delivered(socket);
    if (moved !== (seen.get(socket) ?? 0)) {
      seen.set(socket, moved);
      // Armed again: the next period starts now.
      socket.setTimeout(app.initialConfig.connectionTimeout ?? 0);
      return;
    }
    socket.destroy();
  });
}

/** Bytes of the connection's output the kernel has taken (not those still queued in Node). */
function delivered(socket: Socket): number {
  const handle = (socket as Socket & { _handle?: { writeQueueSize?: number } })._handle;
  return socket.bytesWritten - socket.writableLength - (handle?.writeQueueSize ?? 0);
}
