import { buildApp } from './app.ts';
import { ConfigError, loadConfig } from './config.ts';
import { openStore } from './store/open-store.ts';

/**
 * The entry point: the only place that reads the environment, opens the store, listens and
 * handles signals. SIGTERM or SIGINT stops accepting connections, lets in-flight requests
 * finish (up to SHUTDOWN_TIMEOUT_MS), then closes the store.
 */
export async function main(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const config = loadConfig(env);
  const store = await openStore(config);
  const app = await buildApp({ config, store });

  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      app.log.error('shutdown timed out; exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs);
    timer.unref();
    try {
      await app.close();
      await store.close();
      app.log.info('stopped');
    } catch (error) {
      app.log.error({ err: error }, 'shutdown failed');
      process.exitCode = 1;
    }
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);

  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await store.close();
    throw error;
  }
  app.log.info({ store: store.backend }, 'ready');
}

/** Start-up failures are one clear line on stderr and a non-zero exit, never a stack dump. */
export function reportStartupFailure(error: unknown): never {
  const reason =
    error instanceof ConfigError
      ? error.message
      : `cannot start: ${(error as Error).message ?? error}`;
  process.stderr.write(`glossary: ${reason}\n`);
  process.exit(1);
}

main().catch(reportStartupFailure);
