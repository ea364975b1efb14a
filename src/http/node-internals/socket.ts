import type { Socket } from 'node:net';

/**
 * The two places the service reaches past Node's documented API, kept here so that a Node line
 * that changes them breaks one file, and test/http/node-internals.test.ts says which.
 */

/**
 * Bytes of the connection's output the kernel has taken: what Node counted as written, less
 * what is still queued in Node (`writableLength`) and in libuv's write queue (the handle's
 * `writeQueueSize`, not part of the documented API).
 */
export function deliveredBytes(socket: Socket): number {
  const handle = (socket as Socket & { _handle?: { writeQueueSize?: number } | null })._handle;
  return socket.bytesWritten - socket.writableLength - (handle?.writeQueueSize ?? 0);
}

/**
 * After an answer that says `Connection: close`, Node's HTTP server calls the socket's
 * `destroySoon()` (undocumented), which ends the output and destroys the socket. Replaced on
 * this socket by a half close: the answer and a FIN go out, and reading goes on.
 */
export function halfCloseAfterAnswer(socket: Socket): void {
  socket.destroySoon = () => socket.end();
}
