import type { AppConfig } from '../../src/http/app.ts';
import { startApp, type TestApp } from './app.ts';
import { type Backend, sqliteBackend } from './backends.ts';

export interface ListeningApp extends TestApp {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  url: string;
}

/** The real app on a fresh store, listening on a free loopback port (for a browser or a CLI). */
export async function listenApp(
  backend: Backend = sqliteBackend,
  config: Partial<AppConfig> = {},
): Promise<ListeningApp> {
  const started = await startApp(backend, config);
  await started.app.listen({ port: 0, host: '127.0.0.1' });
  const address = started.app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return { ...started, url: `http://127.0.0.1:${address.port}` };
}
