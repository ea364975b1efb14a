import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors } from '../errors.ts';
import { message } from '../schemas/errors.ts';
import type { TermStore } from '../store/term-store.ts';

const Status = Type.Object({ status: Type.Literal('ok') });

/** Probes for orchestrators: liveness never touches storage; readiness does. */
export const healthRoutes: FastifyPluginAsyncTypebox<{ store: TermStore }> = async (
  app,
  { store },
) => {
  app.get(
    '/healthz',
    {
      schema: {
        summary: 'Liveness: the process answers',
        tags: ['operations'],
        response: { 200: Status },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        summary: 'Readiness: the storage answers',
        tags: ['operations'],
        response: { 200: Status, 503: message('The storage is unreachable.') },
      },
    },
    async (request) => {
      try {
        await store.check();
      } catch (error) {
        request.log.warn({ err: error }, 'readiness check failed');
        throw errors.storageUnavailable();
      }
      return { status: 'ok' as const };
    },
  );
};
