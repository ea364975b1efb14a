import type Database from 'better-sqlite3';
import type { Warn } from '../../glossary/term-store.ts';

/** How often the file is asked whether another connection committed, while anyone listens. */
export const WATCH_INTERVAL_MS = 100;

/**
 * `watchChanges` (changes.ts rule 3) on SQLite, one per store whatever the number of
 * listeners. This process's own writes call `changed()` once committed. Writes of other
 * processes on the same file (WORKERS > 1, the CLI) are seen by polling `PRAGMA data_version`
 * on the store's own connection, which changes when another connection has committed: a
 * look at shared memory, no read transaction, no connection of its own. Only when it moved is
 * the revision read, so a commit that changed no term (a token, a webhook's progress, a
 * checkpoint) wakes nobody. The timer runs only while there are listeners and never keeps the
 * process alive. An in-memory database has no other connection: nothing to poll.
 */
export class ChangeWatch {
  private readonly listeners = new Set<() => void>();
  private timer: NodeJS.Timeout | undefined;
  private dataVersion = 0;
  private revision = 0;
  private pending = false;
  private failing = false;
  private readonly version: Database.Statement<[], number>;
  private readonly current: Database.Statement<[], number>;

  constructor(
    private readonly db: Database.Database,
    private readonly poll: boolean,
    private readonly warn: Warn,
  ) {
    this.version = db.prepare<[], number>('PRAGMA data_version').pluck();
    this.current = db.prepare<[], number>('SELECT revision FROM glossary_state').pluck();
  }

  watch(listener: () => void): () => void {
    // A function of its own: the same listener given twice is called for each watch.
    const entry = () => listener();
    this.listeners.add(entry);
    if (this.listeners.size === 1 && this.poll) this.start();
    return () => {
      if (!this.listeners.delete(entry)) return;
      if (this.listeners.size === 0) this.stop();
    };
  }

  /**
   * A change was committed (by this process, or found by the poll): listeners are called once
   * for all the changes of this turn, after the writer that committed it has returned.
   */
  changed(): void {
    if (this.pending || this.listeners.size === 0) return;
    this.pending = true;
    queueMicrotask(() => {
      this.pending = false;
      for (const listener of [...this.listeners]) {
        // One listener's failure is neither another's nor the writer's.
        try {
          listener();
        } catch (error) {
          this.warn('a change listener failed', error);
        }
      }
    });
  }

  close(): void {
    this.listeners.clear();
    this.stop();
  }

  private start(): void {
    if (!this.db.open) return;
    this.timer = setInterval(() => this.check(), WATCH_INTERVAL_MS);
    this.timer.unref();
    try {
      this.dataVersion = this.version.get() ?? 0;
      this.revision = this.current.get() ?? 0;
    } catch (error) {
      this.failed(error);
    }
  }

  private stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private check(): void {
    if (!this.db.open) {
      this.stop();
      return;
    }
    try {
      if (this.moved()) this.changed();
      this.failing = false;
    } catch (error) {
      this.failed(error);
    }
  }

  /** Whether another connection committed a change of the glossary since the last look. */
  private moved(): boolean {
    const dataVersion = this.version.get() ?? 0;
    if (dataVersion === this.dataVersion) return false;
    const revision = this.current.get() ?? 0;
    this.dataVersion = dataVersion;
    if (revision === this.revision) return false;
    this.revision = revision;
    return true;
  }

  /**
   * The file busy or failing for a moment: asked again at the next tick. A wake more than
   * needed is allowed, one missed is not, so the listeners are told to look. Told once until
   * the poll works again, not ten times a second.
   */
  private failed(error: unknown): void {
    this.changed();
    if (this.failing) return;
    this.failing = true;
    this.warn('watching the database file for changes failed', error);
  }
}
