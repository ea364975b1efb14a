import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * Requests on one connection take effect in the order they were sent (RFC 9112 §9.3.2): Node
 * parses pipelined requests as they arrive and would run their handlers side by side, so a
 * GET could overtake the POST before it, or PostgreSQL commit ten POSTs out of order. Each
 * request waits until the one before it on its connection has been answered; a connection
 * without pipelining never waits. The first `onRequest` hook, so that a request refused
 * early (wrong host, rate limit, token) is refused in its turn too.
 */
export const perConnectionOrder = fp(
  async (app: FastifyInstance) => {
    // A connection with a request in progress maps to the requests waiting behind it.
    const waiting = new WeakMap<object, (() => void)[]>();
    app.addHook('onRequest', (request, reply, done) => {
      const connection = request.raw.socket ?? request.raw;
      reply.raw.once('close', () => {
        const next = waiting.get(connection)?.shift();
        if (next) next();
        else waiting.delete(connection);
      });
      const queue = waiting.get(connection);
      if (queue) queue.push(done);
      else {
        waiting.set(connection, []);
        done();
      }
    });
  },
  { name: 'per-connection-order', fastify: '5.x' },
);
