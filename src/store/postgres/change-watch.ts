import pg from 'pg';
import type { Warn } from '../../glossary/term-store.ts';
import type { Sighting } from './feed.ts';
import { CHANGES_CHANNEL } from './transaction.ts';

/** The first re-check of a held-back horizon, and the slowest while nothing moves. */
const RECHECK_MS = { first: 25, slowest: 250 };
/** Waits before connecting the listening connection again, growing while it fails. */
const RECONNECT_MS = { first: 100, slowest: 5000 };

/**
 * `watchChanges` (changes.ts rule 3) on PostgreSQL, one per store whatever the number of
 * listeners: a connection of its own (not from the pool, which it would hold for good), opened
 * with the first listener, `LISTEN`s on the channel that every write transaction that changed
 * the glossary notifies in its commit (transaction.ts), so a commit in any instance wakes the
 * listeners of every instance. Once `LISTEN` holds (at first, and after a lost connection was
 * made again) the listeners are called once: a notification may have been missed meanwhile.
 *
 * Changes held back by the feed's horizon (feed.ts) become answerable when some transaction
 * ends, which notifies nobody: while a read saw changes held back and anyone listens, the
 * horizon is checked again, every 25 ms at first, more slowly while it does not move, and the
 * listeners are called when it has moved.
 */
export class ChangeWatch {
  private readonly listeners = new Set<() => void>();
  private client: pg.Client | undefined;
  private connecting = false;
  private reconnectMs = RECONNECT_MS.first;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private waking = false;
  private closed = false;
  /** A read saw changes held back; `answered`: the horizon listeners were last woken at. */
  private heldBack: { answered: number } | undefined;
  /** Counts the reads that saw changes held back. */
  private heldBackReads = 0;
  private recheckTimer: NodeJS.Timeout | undefined;
  private recheckMs = RECHECK_MS.first;
  private latestHorizon = 0;

  constructor(
    private readonly url: string,
    private readonly check: () => Promise<Sighting>,
    private readonly warn: Warn,
  ) {}

  watch(listener: () => void): () => void {
    // A function of its own: the same listener given twice is called for each watch.
    const entry = () => listener();
    this.listeners.add(entry);
    if (!this.client && !this.connecting && !this.reconnectTimer) void this.listen(false);
    if (this.heldBack) this.scheduleRecheck();
    return () => {
      this.listeners.delete(entry);
    };
  }

  /** Told of every read of the feed: whether it held changes back. */
  seen({ horizon, drawn }: Sighting): void {
    this.latestHorizon = Math.max(this.latestHorizon, horizon);
    if (horizon >= drawn) return;
    this.heldBackReads += 1;
    if (this.heldBack) this.heldBack.answered = Math.min(this.heldBack.answered, horizon);
    else {
      this.heldBack = { answered: horizon };
      this.recheckMs = RECHECK_MS.first;
    }
    this.scheduleRecheck();
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    clearTimeout(this.recheckTimer);
    this.listeners.clear();
    const client = this.client;
    this.client = undefined;
    client?.end().catch(() => undefined);
  }

  /** Calls every listener once for all the wakes of this turn. */
  private wake(): void {
    if (this.waking || this.listeners.size === 0) return;
    this.waking = true;
    queueMicrotask(() => {
      this.waking = false;
      for (const listener of [...this.listeners]) {
        // One listener's failure is neither another's nor the watch's.
        try {
          listener();
        } catch (error) {
          this.warn('a change listener failed', error);
        }
      }
    });
  }

  private async listen(again: boolean): Promise<void> {
    if (this.closed) return;
    this.connecting = true;
    const client = new pg.Client({
      connectionString: this.url,
      keepAlive: true,
      application_name: 'glossary-changes',
    });
    const lost = () => {
      if (this.client !== client) return;
      this.client = undefined;
      client.end().catch(() => undefined);
      this.retry();
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', () => this.wake());
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch (error) {
      this.connecting = false;
      client.end().catch(() => undefined);
      if (!again) this.warn('cannot listen for changes; will retry', error);
      this.retry();
      return;
    }
    this.connecting = false;
    if (this.closed) {
      client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    this.reconnectMs = RECONNECT_MS.first;
    // A change committed before LISTEN took hold notified nobody: the listeners look once.
    this.wake();
  }

  private retry(): void {
    if (this.closed || this.reconnectTimer) return;
    const wait = this.reconnectMs;
    this.reconnectMs = Math.min(wait * 2, RECONNECT_MS.slowest);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.listen(true);
    }, wait);
    this.reconnectTimer.unref();
  }

  private scheduleRecheck(): void {
    if (this.closed || this.recheckTimer || this.listeners.size === 0) return;
    this.recheckTimer = setTimeout(() => void this.recheck(), this.recheckMs);
    this.recheckTimer.unref();
  }

  /** Reads the horizon again; wakes the listeners when it moved, stops once nothing waits. */
  private async recheck(): Promise<void> {
    let sighting: Sighting | undefined;
    const reads = this.heldBackReads;
    try {
      sighting = await this.check();
    } catch {
      // The storage failing: the next re-check, or the next read, finds out more.
    }
    this.recheckTimer = undefined;
    const heldBack = this.heldBack;
    if (!heldBack || this.closed) return;
    if (this.latestHorizon > heldBack.answered) {
      heldBack.answered = this.latestHorizon;
      this.recheckMs = RECHECK_MS.first;
      this.wake();
    } else {
      this.recheckMs = Math.min(this.recheckMs * 2, RECHECK_MS.slowest);
    }
    // Nothing waits any more, unless a read meanwhile saw changes held back.
    const caughtUp = sighting && sighting.horizon >= sighting.drawn;
    if (caughtUp && this.heldBackReads === reads) this.heldBack = undefined;
    else this.scheduleRecheck();
  }
}
