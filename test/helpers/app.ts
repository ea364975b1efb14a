import type { FastifyInstance } from 'fastify';
import { loadConfig } from '../../src/config.ts';
import type { TermStore } from '../../src/glossary/term-store.ts';
import { type AppConfig, buildApp } from '../../src/http/app.ts';
import type { Backend } from './backends.ts';
import { enforceOpenApi } from './openapi-check.ts';

/** The service's own defaults (as an unset environment gives them), with the logs silenced. */
export const TEST_CONFIG: AppConfig = { ...loadConfig({}), logLevel: 'silent' };

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
