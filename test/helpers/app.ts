import type { FastifyInstance } from 'fastify';
import { type AppConfig, buildApp } from '../../src/app.ts';
import type { TermStore } from '../../src/store/term-store.ts';
import type { Backend } from './backends.ts';
import { enforceOpenApi } from './openapi-check.ts';

export const TEST_CONFIG: AppConfig = {
  bodyLimit: 16 * 1024 * 1024,
  batchLimit: 10_000,
  corsOrigins: '*',
  logLevel: 'silent',
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  idleTimeoutMs: 30_000,
  keepAliveTimeoutMs: 72_000,
  maxRequestsPerSocket: 0,
  rateLimit: null,
};

export interface TestApp {
  app: FastifyInstance;
  store: TermStore;
  close(): Promise<void>;
}

export interface StartOptions {
  /**
   * Every response seen through `app.inject(options)` is checked against the served OpenAPI
   * document (see openapi-check.ts) unless this is false.
   */
  checkOpenApi?: boolean;
}

/** The real app on a fresh store of the given backend, driven through `inject()`. */
export async function startApp(
  backend: Backend,
  config: Partial<AppConfig> = {},
  { checkOpenApi = true }: StartOptions = {},
): Promise<TestApp> {
  const store = await backend.open();
  const app = await buildApp({ config: { ...TEST_CONFIG, ...config }, store, logger: false });
  await app.ready();
  if (checkOpenApi) await enforceOpenApi(app);
  return {
    app,
    store,
    async close() {
      await app.close();
      await store.close();
    },
  };
}

export const sampleTerm = (id: number, overrides: Record<string, unknown> = {}) => ({
  id,
  term: `Term ${id}`,
  definition: `Definition of term ${id}.`,
  category: 'backend',
  see_also: [],
  ...overrides,
});
