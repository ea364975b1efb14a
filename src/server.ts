import './node-version.ts';
import cluster from 'node:cluster';
import { runPrimary } from './cluster-primary.ts';
import { ConfigError, loadConfig } from './config.ts';
import { buildApp } from './http/app.ts';
import { createLogger } from './logging.ts';
import { logStartAddresses } from './start-message.ts';
import { warnAboutAccess } from './start-warnings.ts';
import { onStopSignal } from './stop-signal.ts';
import { openStore } from './store/open-store.ts';
import { openingStore } from './store/opening-store.ts';
import { type Deliverer, startDeliverer } from './webhooks/deliverer.ts';
import { DeliveryCounts } from './webhooks/delivery-counts.ts';

/**
 * The entry point: the only place that reads the environment, opens the store, listens and
 * handles signals. SIGTERM or SIGINT stops accepting connections, lets in-flight requests
 * finish (up to SHUTDOWN_TIMEOUT_MS), then closes the store. With WORKERS > 1 this process
 * supervises that many worker processes, each running the same code from here on. Every
 * serving process (each worker) runs a webhook deliverer once it listens; the store's leases
 * give each endpoint to one of them.
 */
export async function main(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const config = loadConfig(env);
  if (config.workers > 1 && cluster.isPrimary) return runPrimary(config);
  const log = createLogger(config);
  // The service listens while the store opens, so that it answers /healthz at once; a large
  // SQLite file's integrity check takes seconds (see opening-store.ts).
  const store = openingStore(
    config.database.kind,
    openStore({
      ...config,
      warn: (message, error) => log.warn({ err: error }, message),
      // A worker's primary checked the file before starting the workers.
      checkFile: !cluster.isWorker,
    }),
  );
  const deliveries = new DeliveryCounts();
  const app = await buildApp({ config, store, loggerInstance: log, deliveries });
  let deliverer: Deliverer | undefined;
  // A stop asked for once the store is open but before `ready` (an orchestrator saw /readyz
  // and moved on, say) is a stop, not a failed start: what fails then because the stop
  // closed the store ends here, and the stop's own exit (0) stands. A store that cannot
  // open is a failed start whenever the stop came: its one line and exit 1, from whichever
  // of the two gets there first (a close waits for the opening, so it has settled).
  let stopping = false;

  onStopSignal(config.shutdownTimeoutMs, app.log, async () => {
    stopping = true;
    await Promise.all([app.close(), deliverer?.stop()]);
    await store.close();
    await store.opened.catch(reportStartupFailure);
  });

  const failed = async (error: unknown) => {
    await app.close();
    await store.close();
    throw error;
  };
  try {
    await app.listen({ port: config.port, host: config.host });
    await store.opened;
  } catch (error) {
    return failed(error);
  }
  try {
    // The typo vocabulary is read into memory now, before `ready`, rather than by the first
    // one-typo search (a second or two of the event loop at a million terms).
    await store.similarWords('glossary', 1);
    // With WORKERS > 1 the primary has said it once already. Said before `ready`.
    if (cluster.isPrimary) await warnAboutAccess(store, config, app.log);
  } catch (error) {
    return stopping ? undefined : failed(error);
  }
  if (stopping) return;
  deliverer = startDeliverer({
    store,
    config,
    log,
    onOutcome: deliveries.record,
    // Attempts in flight get half the shutdown time, the rest is for closing the store.
    stopGraceMs: config.shutdownTimeoutMs / 2,
  });
  app.log.info({ store: store.backend }, 'ready');
  // A worker's primary says where to look, once for all of them.
  if (cluster.isPrimary)
    logStartAddresses(app.log, config.host, listeningPort(app.server), config.allowedHosts);
}

function listeningPort(server: { address(): unknown }): number {
  const address = server.address() as { port?: number } | null;
  return address?.port ?? 0;
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
