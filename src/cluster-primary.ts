import cluster, { type Worker } from 'node:cluster';
import type { Config } from './config.ts';
import { answerAuthFailures } from './http/auth-failures.ts';
import { answerMetrics } from './http/plugins/metrics.ts';
import { answerRateLimits } from './http/plugins/rate-limit.ts';
import { createLogger } from './logging.ts';
import { logStartAddresses } from './start-message.ts';
import { warnAboutAccess } from './start-warnings.ts';
import { onStopSignal } from './stop-signal.ts';
import { openStore } from './store/open-store.ts';

/**
 * `WORKERS` > 1: this process only supervises. It brings the schema up to date once, before
 * any worker opens the store (so N workers never race to migrate), then forks the workers,
 * which share the listening port through node:cluster. A worker that dies is replaced; SIGTERM
 * or SIGINT is passed to every worker, which finishes its in-flight requests and closes its
 * store, and the primary exits once they all have.
 */

/** A worker dying sooner than this after its start waits before it is replaced (no busy loop). */
const QUICK_DEATH_MS = 5000;
const RESTART_DELAY_MS = 1000;

export async function runPrimary(config: Config): Promise<void> {
  const log = createLogger(config);
  const store = await openStore(config);
  try {
    await warnAboutAccess(store, config, log);
  } finally {
    await store.close();
  }

  answerMetrics();
  answerRateLimits();
  if (config.authFailureLimit) answerAuthFailures(config.authFailureLimit);
  let stopping = false;
  let allStopped = () => {};
  const started = new Map<number, number>();
  const fork = () => {
    const worker = cluster.fork();
    // The channel to a worker that is exiting may fail (EPIPE when node:cluster tells it about
    // the shared socket as it stops); unheard, that error would kill the primary. Its exit is
    // handled below.
    worker.on('error', (error) =>
      log.warn({ worker: worker.id, err: error }, 'worker channel failed'),
    );
    started.set(worker.id, performance.now());
    log.info({ worker: worker.id, workerPid: worker.process.pid }, 'worker started');
  };

  let listening = 0;
  cluster.on('listening', (worker: Worker, address) => {
    listening += 1;
    log.info(
      { worker: worker.id, workerPid: worker.process.pid, port: address.port },
      'worker listening',
    );
    if (listening === config.workers) {
      log.info({ workers: config.workers, port: address.port }, 'ready');
      logStartAddresses(log, config.host, address.port, config.allowedHosts);
    }
  });
  cluster.on('exit', (worker: Worker, code, signal) => {
    const lived = performance.now() - (started.get(worker.id) ?? 0);
    started.delete(worker.id);
    if (stopping) {
      log.info({ worker: worker.id, code, signal }, 'worker stopped');
      if (started.size === 0) allStopped();
      return;
    }
    log.error(
      { worker: worker.id, workerPid: worker.process.pid, code, signal },
      'worker died; replacing it',
    );
    if (lived < QUICK_DEATH_MS) setTimeout(() => stopping || fork(), RESTART_DELAY_MS);
    else fork();
  });

  // Each worker has its own shutdown timeout; this one only guards against a stuck worker.
  onStopSignal(
    config.shutdownTimeoutMs + 2000,
    log,
    async () => {
      stopping = true;
      const stopped = new Promise<void>((resolve) => {
        allStopped = resolve;
      });
      if (started.size === 0) allStopped();
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGTERM');
      await stopped;
    },
    () => {
      log.error('workers did not stop in time; exiting');
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
    },
  );

  for (let i = 0; i < config.workers; i += 1) fork();
}
