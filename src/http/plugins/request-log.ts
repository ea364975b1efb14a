import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/**
 * Every answer carries its request id (`X-Request-Id`), and is logged once it has gone, on one
 * line (Fastify's own request logging is off). Once shutdown has begun, a keep-alive
 * connection is closed after its request: otherwise an idle client connection would hold the
 * shutdown open until the client drops it.
 */
export const requestLog = fp(
  async (app: FastifyInstance) => {
    let closing = false;
    app.addHook('preClose', async () => {
      closing = true;
    });
    app.addHook('onSend', (request, reply, payload, done) => {
      reply.header('x-request-id', request.id);
      if (closing) reply.header('connection', 'close');
      done(null, payload);
    });
    logEachRequest(app);
  },
  { name: 'request-log', fastify: '5.x' },
);

/**
 * One log line per request, once it is answered: method, URL, status, client address and time
 * taken, beside the request id. (The benchmark's Fastify floor logs with it too.)
 */
export function logEachRequest(app: FastifyInstance): void {
  app.addHook('onResponse', (request, reply, done) => {
    request.log.info(
      {
        method: request.method,
        url: request.url,
        statusCode: reply.statusCode,
        remoteAddress: request.ip,
        responseTimeMs: Math.round(reply.elapsedTime * 100) / 100,
      },
      'request completed',
    );
    done();
  });
}
