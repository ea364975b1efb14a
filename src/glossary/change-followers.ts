import type { ChangeFeed } from './changes.ts';
import type { HistoryEntry } from './history.ts';

/**
 * Everyone following the feed in one process (long polls and event streams), served by one
 * reader: a follower that has caught up waits here, holding no database connection; on a
 * change the store announces (`watchChanges`), the feed is read once from `tail` and each
 * waiting follower is handed the entries above its own cursor. So a thousand idle streams cost
 * one listener, and a change costs one read, not a thousand.
 *
 * Nothing is skipped: a batch holds every entry in (start, end], so it serves a follower whose
 * cursor is at or above `start`; one below it (it joined while an older read was in flight) is
 * told to read for itself, and then has entries to read. `tail` is the lowest cursor waiting, so
 * a client asking from far beyond the last revision delays nobody.
 */

/** How many entries one read of the feed takes at most. */
const READ_LIMIT = 1000;
/** After a failed read, the next one. */
const RETRY_MS = 1000;

export interface Follower {
  /** The revision of the last entry it has. */
  readonly cursor: number;
  /** Entries above its cursor (never empty), in order. */
  deliver(entries: HistoryEntry[]): void;
  /** Its cursor is below what a batch covers: it must read for itself (then join again). */
  fallBehind(): void;
}

export class ChangeFollowers {
  private readonly waiting = new Set<Follower>();
  /** Every waiting follower's cursor is at least this; the next read starts here. */
  private tail: number | undefined;
  private unwatch: (() => void) | undefined;
  private reading = false;
  private again = false;
  private isClosed = false;

  constructor(
    private readonly feed: ChangeFeed,
    private readonly warn: (error: unknown) => void,
  ) {}

  /** Adds a caught-up follower; false once the followers are closed. */
  join(follower: Follower): boolean {
    if (this.isClosed) return false;
    this.tail = Math.min(this.tail ?? follower.cursor, follower.cursor);
    this.waiting.add(follower);
    this.unwatch ??= this.feed.watchChanges(() => this.changed());
    return true;
  }

  leave(follower: Follower): void {
    this.waiting.delete(follower);
    if (this.waiting.size > 0) return;
    // Nobody waits: forget the tail (a later follower starts its own) and stop listening.
    this.tail = undefined;
    this.unwatch?.();
    this.unwatch = undefined;
  }

  get size(): number {
    return this.waiting.size;
  }

  get closed(): boolean {
    return this.isClosed;
  }

  /** Lets every follower go (falling behind: each ends or reads for itself) and joins no more. */
  close(): void {
    this.isClosed = true;
    for (const follower of [...this.waiting]) {
      this.leave(follower);
      follower.fallBehind();
    }
  }

  private changed(): void {
    if (this.reading) {
      this.again = true;
      return;
    }
    this.reading = true;
    void this.readOn().finally(() => {
      this.reading = false;
    });
  }

  /** Reads from the tail until nothing is left, handing each batch out. */
  private async readOn(): Promise<void> {
    do {
      this.again = false;
      while (this.tail !== undefined && this.waiting.size > 0) {
        const start = this.tail;
        let entries: HistoryEntry[];
        try {
          entries = await this.feed.changesSince(start, READ_LIMIT);
        } catch (error) {
          // Read again in a while (or at the next change announced); the followers wait on.
          this.warn(error);
          setTimeout(() => this.changed(), RETRY_MS).unref();
          return;
        }
        const last = entries.at(-1);
        if (last === undefined) break;
        this.handOut(start, entries);
        // Every follower still waiting now has all of them (or asked from beyond them).
        if (this.waiting.size > 0) this.tail = last.revision;
        if (entries.length < READ_LIMIT) break;
      }
    } while (this.again);
  }

  private handOut(start: number, entries: HistoryEntry[]): void {
    for (const follower of [...this.waiting]) {
      if (follower.cursor < start) {
        this.leave(follower);
        follower.fallBehind();
        continue;
      }
      const first = entries.findIndex((entry) => entry.revision > follower.cursor);
      if (first >= 0) follower.deliver(first === 0 ? entries : entries.slice(first));
    }
  }
}
