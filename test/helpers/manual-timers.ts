import type { QuietTimers } from '../../src/store/quiet-time.ts';

/**
 * Timers a test drives (quiet-time.ts): nothing waited for runs until the test says the time
 * has passed (`elapse`), so "nothing happened once the store was quiet" is asserted right after
 * the quiet moment, not after a sleep that hopes it came.
 */
export interface ManualTimers extends QuietTimers {
  /** How many waits are under way. */
  pending(): number;
  /** Lets every wait under way run out: each callback runs, in the order it was set. */
  elapse(): void;
}

export function manualTimers(): ManualTimers {
  const waits = new Map<number, () => void>();
  let next = 0;
  return {
    setTimeout(run) {
      next += 1;
      waits.set(next, run);
      return next;
    },
    clearTimeout(handle) {
      waits.delete(handle as number);
    },
    pending: () => waits.size,
    elapse() {
      const due = [...waits.values()];
      waits.clear();
      for (const run of due) run();
    },
  };
}
