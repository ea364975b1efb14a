import { StoreUnavailableError } from './errors.ts';

/**
 * What both stores remember of their writes. A write that failed for lack of storage (disk
 * full, a read-only file or server after a failover, a lost connection) is remembered until a
 * write succeeds again, and while it is, readiness (`check`) probes with a real committed
 * write instead of a read that may still work.
 */
export class WriteHealth {
  constructor(
    /** Told after each write that succeeded (the backend's quiet-time upkeep starts waiting). */
    private readonly wrote: () => void,
    /** A storage failure found before the first write (SQLite's probe at start). */
    private failure: StoreUnavailableError | null = null,
  ) {}

  /** Whether the last write failed for lack of storage: readiness then probes with a write. */
  get failing(): boolean {
    return this.failure !== null;
  }

  /** A synchronous write (SQLite), remembered. */
  run<T>(work: () => T): T {
    try {
      const result = work();
      this.succeeded();
      return result;
    } catch (error) {
      this.failed(error);
      throw error;
    }
  }

  /** An asynchronous write (PostgreSQL), remembered. */
  async runAsync<T>(work: () => Promise<T>): Promise<T> {
    try {
      const result = await work();
      this.succeeded();
      return result;
    } catch (error) {
      this.failed(error);
      throw error;
    }
  }

  private succeeded(): void {
    this.failure = null;
    this.wrote();
  }

  private failed(error: unknown): void {
    if (error instanceof StoreUnavailableError) this.failure = error;
  }
}
