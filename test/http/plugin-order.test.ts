import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { access } from '../../src/http/plugins/access.ts';
import { bodyBudget } from '../../src/http/plugins/body-budget.ts';
import { methodNotAllowed } from '../../src/http/plugins/method-not-allowed.ts';

/** The HTTP plugins' order is declared (fastify-plugin dependencies) and checked at start. */
test('a plugin registered before the ones it must follow is refused at start, by name', async () => {
  for (const [register, missing] of [
    [
      (app: ReturnType<typeof Fastify>) =>
        app.register(access, { store: {} as never, readAccess: 'public', authFailureLimit: null }),
      "The dependency 'rate-limit' of plugin 'access' is not registered",
    ],
    [
      (app: ReturnType<typeof Fastify>) => app.register(bodyBudget, { bytes: 1 }),
      "The dependency 'json-body' of plugin 'body-budget' is not registered",
    ],
    [
      (app: ReturnType<typeof Fastify>) =>
        app.register(methodNotAllowed, { routes: async () => undefined }),
      "The dependency 'metrics' of plugin 'method-not-allowed' is not registered",
    ],
  ] as const) {
    const app = Fastify({ logger: false });
    await assert.rejects(async () => register(app), { message: missing });
    await app.close();
  }
});
