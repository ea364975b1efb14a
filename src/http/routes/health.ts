import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { TermStore } from '../../glossary/term-store.ts';
import { StoreOpeningError } from '../../store/errors.ts';
import { errors } from '../errors.ts';
import { anyRequestErrors, unavailable } from '../schemas/errors.ts';

const Status = Type.Object(
  { status: Type.Literal('ok') },
  { title: 'Status', examples: [{ status: 'ok' }] },
);

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
        description: 'Never touches storage: 200 as long as the process serves requests.',
        operationId: 'liveness',
        tags: ['operations'],
        response: {
          200: { ...Status, description: 'The process serves requests.' },
          ...anyRequestErrors,
        },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        summary: 'Readiness: the storage answers',
        description:
          'Reads from the storage; after a write has failed for a storage reason (disk full, read-only file), also probes a write. 503 until the storage works again; no restart needed.',
        operationId: 'readiness',
        tags: ['operations'],
        response: {
          200: { ...Status, description: 'The storage answers.' },
          ...unavailable,
          ...anyRequestErrors,
        },
      },
    },
    async (request) => {
      try {
        await store.check();
      } catch (error) {
        // Not ready while the store opens: expected at start, not a failure to warn of.
        if (error instanceof StoreOpeningError) request.log.info('not ready: the store is opening');
        else request.log.warn({ err: error }, 'readiness check failed');
        throw errors.storageUnavailable();
      }
      return { status: 'ok' as const };
    },
  );
};
