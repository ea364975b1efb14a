import { StoreUnavailableError } from '../errors.ts';

/**
 * How many pooled connections streaming lists may hold at once. A long list holds its
 * connection for as long as its client reads (one snapshot, through a cursor), so without a
 * cap, clients that ask for lists and stop reading could take every connection and starve
 * every other request. With the cap, they can only starve other long lists; point reads,
 * pages, writes and readiness always find a connection. Lists beyond the cap wait for a slot,
 * and answer 503 (the storage is busy) when none frees up in time.
 */
export class ListSlots {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(
    readonly size: number,
    private readonly waitMs: number,
  ) {
    this.free = size;
  }

  /** Resolves with a release function once a slot is held. */
  async take(): Promise<() => void> {
    if (this.free > 0) {
      this.free -= 1;
      return this.releaser();
    }
    await new Promise<void>((resolve, reject) => {
      const grant = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(grant), 1);
        reject(new StoreUnavailableError('postgres: every list slot is taken; try again later'));
      }, this.waitMs);
      this.waiting.push(grant);
    });
    return this.releaser();
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.free += 1;
    };
  }
}

/** Half the pool for lists (at least one), so the other half stays for everything else. */
export function listSlotsFor(poolSize: number): number {
  return Math.max(1, Math.floor(poolSize / 2));
}
