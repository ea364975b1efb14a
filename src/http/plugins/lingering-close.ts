import type { IncomingMessage } from 'node:http';
import net from 'node:net';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { halfCloseAfterAnswer } from '../node-internals/socket.ts';

/**
 * A client that sends a body over the limit (413, or 503 past the memory budget of all bodies, body-budget.ts)
 * may keep sending it before it reads the answer, as Python's urllib and Node's fetch do;
 * closing the connection under it makes its next write fail ("broken pipe"), and it never sees
 * the answer. As nginx's lingering close does, the rest of such a body is read and thrown away,
 * at most `bytes` of it for at most `ms`, then the connection closes; beyond either bound it is
 * cut at once.
 */
export const lingeringClose = fp(
  async (app: FastifyInstance, { bytes, ms }: { bytes: number; ms: number }) => {
    registerLingeringClose(app, bytes, ms);
  },
  // After the body budget: its 503 lingers too.
  { name: 'lingering-close', fastify: '5.x', dependencies: ['body-budget'] },
);

function registerLingeringClose(app: FastifyInstance, bytes: number, ms: number): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    // The answer says `Connection: close`, after which Node would destroy the socket: make
    // that a half close instead (the answer and a FIN go out; reading goes on).
    if (lingers(request.raw, reply.statusCode)) halfCloseAfterAnswer(request.raw.socket);
    done(null, payload);
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (lingers(request.raw, reply.statusCode)) discardRest(request.raw, bytes, ms);
    done();
  });
}

/**
 * A 413, or a 503 for a body over the memory budget (body-budget.ts), before the whole body
 * arrived, on a real connection (not an injected request).
 */
function lingers(raw: IncomingMessage, status: number): boolean {
  return (status === 413 || status === 503) && !raw.complete && raw.socket instanceof net.Socket;
}

function discardRest(raw: IncomingMessage, bytes: number, ms: number): void {
  const socket = raw.socket;
  let left = bytes;
  const cut = () => socket.destroy();
  const timer = setTimeout(cut, ms).unref();
  raw.on('data', (chunk: Buffer) => {
    left -= chunk.length;
    if (left < 0) cut();
  });
  raw.once('end', () => {
    clearTimeout(timer);
    socket.destroy();
  });
  raw.once('close', () => clearTimeout(timer));
  // Nothing downstream (a body counting stream) may hold the bytes back or keep them.
  raw.unpipe();
  raw.resume();
}
