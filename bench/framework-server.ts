import Fastify, { type FastifyBaseLogger, LogController } from 'fastify';
import type { LogLevel } from '../src/config.ts';
import { logEachRequest } from '../src/http/plugins/request-log.ts';
import { createLogger } from '../src/logging.ts';
import { body } from './bodies.ts';

/**
 * The framework's floor: Fastify with the service's logger and its one line per request,
 * answering `GET /bytes/N` with the bare server's bytes. What the service costs above it is
 * the service's own work (the store, the ETag, the request id, CORS, metrics); what it costs
 * above the bare server is the framework and the log line.
 */
const app = Fastify({
  loggerInstance: createLogger({
    logLevel: (process.env.LOG_LEVEL ?? 'info') as LogLevel,
    logFormat: 'json',
  }) as FastifyBaseLogger,
  logController: new LogController({ disableRequestLogging: true }),
});
logEachRequest(app);
app.get<{ Params: { size: string } }>('/bytes/:size', (request, reply) => {
  reply.type('application/json; charset=utf-8').send(body(Number(request.params.size)));
});

const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ port: Number(new URL(address).port) })}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
