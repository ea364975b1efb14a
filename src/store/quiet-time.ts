/**
 * Quiet-time scheduling, for both stores' upkeep (sqlite/upkeep.ts merges the FTS5 indexes,
 * postgres/upkeep.ts the GIN indexes' pending lists): `onQuiet` runs once no write has come
 * from this process for `idleMs`. Each write restarts the wait.
 */

/** The timers the wait uses: the process's own, or a test's that it drives by hand. */
export interface QuietTimers {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The process's timers, unreferenced: a wait for quiet never keeps the process alive. */
export const processTimers: QuietTimers = {
  setTimeout: (run, ms) => setTimeout(run, ms).unref(),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout | undefined),
};

export class QuietTime {
  private waiting: unknown;

  constructor(
    private readonly idleMs: number,
    private readonly onQuiet: () => void,
    private readonly timers: QuietTimers = processTimers,
  ) {}

  /** After a write (and when upkeep may be due at open): (re)starts the wait. */
  restart(): void {
    this.timers.clearTimeout(this.waiting);
    this.waiting = this.timers.setTimeout(this.fire, this.idleMs);
  }

  /** Stops waiting; a later `restart` waits again. */
  stop(): void {
    this.timers.clearTimeout(this.waiting);
    this.waiting = undefined;
  }

  private readonly fire = () => {
    this.waiting = undefined;
    this.onQuiet();
  };
}
