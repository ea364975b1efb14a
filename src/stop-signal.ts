import closeWithGrace from 'close-with-grace';
import type { LogFn } from 'pino';

/**
 * SIGTERM or SIGINT runs `stop` once (close-with-grace), then the process exits: 0 once it is
 * done, 1 when it failed or took longer than `timeoutMs`. A second signal meanwhile ends the
 * process at once. Other signals and uncaught errors keep Node's own behaviour.
 */
export function onStopSignal(
  timeoutMs: number,
  log: { info: LogFn; error: LogFn },
  stop: () => Promise<void>,
  onTimeout = () => log.error('shutdown timed out; exiting'),
): void {
  closeWithGrace(
    {
      delay: timeoutMs,
      logger: false,
      skip: OTHER_EVENTS,
      onTimeout,
      onSecondSignal: (signal) => log.error({ signal }, 'second signal; exiting'),
    },
    async ({ signal }) => {
      log.info({ signal }, 'shutting down');
      try {
        await stop();
      } catch (error) {
        log.error({ err: error }, 'shutdown failed');
        throw error;
      }
      log.info('stopped');
    },
  );
}

/** What close-with-grace would otherwise handle: every signal but these two, errors, exit. */
const OTHER_EVENTS: closeWithGrace.AllEvents[] = [
  'SIGHUP',
  'SIGQUIT',
  'SIGILL',
  'SIGTRAP',
  'SIGABRT',
  'SIGBUS',
  'SIGFPE',
  'SIGSEGV',
  'SIGUSR2',
  'uncaughtException',
  'unhandledRejection',
  'beforeExit',
];
