/**
 * Values computed from the glossary at a revision (both stores' counts, PostgreSQL's rankings
 * and first pages), by filter: at most 256 of them, weighing
 * at most `maxWeight` together (then it starts afresh). Requests that want the same value at
 * the same revision while it is being computed wait for that one computation: after a write,
 * 32 clients asking for the same broad search make one count, not 32 (each of which took 0.5 s
 * at 1M terms, and together held every pooled connection for longer than a client waits).
 *
 * `what` names a value and is compared as JSON; a string is its own key, so a caller that
 * asks with the same key more than once makes it once.
 */
export class RevisionCache<T> {
  private readonly entries = new Map<string, { revision: string; value: T; at: number }>();
  private readonly pending = new Map<string, { revision: string; value: Promise<T> }>();
  private weight = 0;
  constructor(
    private readonly weigh: (value: T) => number = () => 1,
    private readonly maxWeight = 256,
  ) {}

  /** The value computed for `what` at `revision`, if it is kept. */
  current(revision: string, what: unknown): T | undefined {
    const entry = this.entries.get(keyOf(what));
    return entry?.revision === revision ? entry.value : undefined;
  }

  /** The value computed for `what` at whichever revision, if within the last `maxAgeMs`. */
  recent(what: unknown, maxAgeMs: number): T | undefined {
    const entry = this.entries.get(keyOf(what));
    return entry && performance.now() - entry.at <= maxAgeMs ? entry.value : undefined;
  }

  /** `what` names the value (a filter, say). */
  async get(revision: string, what: unknown, compute: () => Promise<T>): Promise<T> {
    const key = keyOf(what);
    const cached = this.entries.get(key);
    if (cached?.revision === revision) return cached.value;
    const running = this.pending.get(key);
    if (running?.revision === revision) return running.value;
    const computing = compute();
    this.pending.set(key, { revision, value: computing });
    let value: T;
    try {
      value = await computing;
    } finally {
      if (this.pending.get(key)?.value === computing) this.pending.delete(key);
    }
    this.set(key, revision, value);
    return value;
  }

  /**
   * Carries the values kept at revision `from` to revision `to`: each becomes what `carried`
   * answers for it (given its key), or is left at `from` when that is undefined.
   */
  carry(from: string, to: string, carried: (key: string, value: T) => T | undefined): void {
    for (const [key, entry] of this.entries) {
      if (entry.revision !== from) continue;
      const value = carried(key, entry.value);
      if (value !== undefined)
        this.entries.set(key, { revision: to, value, at: performance.now() });
    }
  }

  /** Keeps a value computed for `what` at `revision` by a caller that could not wait (SQLite's). */
  keep(revision: string, what: unknown, value: T): void {
    this.set(keyOf(what), revision, value);
  }

  private set(key: string, revision: string, value: T): void {
    const weight = this.weigh(value);
    if (this.entries.size >= 256 || this.weight + weight > this.maxWeight) {
      this.entries.clear();
      this.weight = 0;
    }
    this.entries.set(key, { revision, value, at: performance.now() });
    this.weight += weight;
  }
}

/** A string names itself; anything else is named by its JSON. */
const keyOf = (what: unknown): string => (typeof what === 'string' ? what : JSON.stringify(what));
