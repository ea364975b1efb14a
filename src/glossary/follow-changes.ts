import type { ChangeFollowers, Follower } from './change-followers.ts';
import type { ChangeFeed } from './changes.ts';
import type { HistoryEntry } from './history.ts';

/** How many entries a stream reads at once while it catches up. */
const BACKLOG_READ = 1000;

export interface WaitOptions {
  since: number;
  limit: number;
  /** How long to wait for a change when none is above `since`; 0: answer at once. */
  waitMs: number;
  /** Aborted when the client has gone: the wait ends. */
  signal: AbortSignal;
}

/**
 * GET /changes: the changes above `since`; when there are none, the first ones to come within
 * `waitMs` (a long poll), or none.
 */
export async function waitForChanges(
  feed: ChangeFeed,
  followers: ChangeFollowers,
  { since, limit, waitMs, signal }: WaitOptions,
): Promise<HistoryEntry[]> {
  const deadline = performance.now() + waitMs;
  for (;;) {
    const entries = await feed.changesSince(since, limit);
    if (entries.length > 0 || followers.closed || signal.aborted) return entries;
    const left = deadline - performance.now();
    if (left <= 0) return entries;
    const handed = await waitOnce(followers, since, left, signal);
    if (handed === 'done') return [];
    if (handed !== 'read-again') return handed.slice(0, limit);
  }
}

function waitOnce(
  followers: ChangeFollowers,
  since: number,
  ms: number,
  signal: AbortSignal,
): Promise<HistoryEntry[] | 'read-again' | 'done'> {
  return new Promise((resolve) => {
    const follower: Follower = {
      cursor: since,
      deliver: (entries) => finish(entries),
      fallBehind: () => finish('read-again'),
    };
    const timer = setTimeout(() => finish('done'), ms);
    const onAbort = () => finish('done');
    function finish(outcome: HistoryEntry[] | 'read-again' | 'done') {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      followers.leave(follower);
      resolve(outcome);
    }
    if (signal.aborted || !followers.join(follower)) return finish('done');
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export interface FollowOptions {
  since: number;
  /** Ends the following. */
  signal: AbortSignal;
  /** Each batch of changes, in order, never empty. */
  onEntries(entries: HistoryEntry[]): void;
  /** A read of the feed failed; it is tried again after a pause. */
  onReadFailure(error: unknown): void;
}

/** Pauses before a failed read of a stream's backlog is tried again, growing to the last. */
const RETRY_MS = [250, 500, 1000, 2000, 5000];

/**
 * An event stream: every change above `since`, the backlog first, then each as it comes,
 * until `signal` aborts or the followers close (the service stops).
 */
export async function followChanges(
  feed: ChangeFeed,
  followers: ChangeFollowers,
  { since, signal, onEntries, onReadFailure }: FollowOptions,
): Promise<void> {
  let cursor = since;
  let failures = 0;
  const take = (entries: HistoryEntry[]) => {
    onEntries(entries);
    cursor = entries.at(-1)?.revision ?? cursor;
  };
  while (!signal.aborted && !followers.closed) {
    let backlog: HistoryEntry[];
    try {
      backlog = await feed.changesSince(cursor, BACKLOG_READ);
      failures = 0;
    } catch (error) {
      // The storage failing for a while (or a burst of new streams queueing for its
      // connections) pauses the stream; the client keeps it and misses nothing.
      onReadFailure(error);
      await pause(RETRY_MS[Math.min(failures, RETRY_MS.length - 1)] as number, signal);
      failures += 1;
      continue;
    }
    if (signal.aborted) return;
    if (backlog.length > 0) take(backlog);
    if (backlog.length === BACKLOG_READ) continue;
    const caughtUp = await new Promise<boolean>((resolve) => {
      const follower: Follower = {
        get cursor() {
          return cursor;
        },
        deliver: take,
        fallBehind: () => {
          signal.removeEventListener('abort', onAbort);
          resolve(true);
        },
      };
      const onAbort = () => {
        followers.leave(follower);
        resolve(false);
      };
      if (!followers.join(follower)) return resolve(false);
      signal.addEventListener('abort', onAbort, { once: true });
    });
    if (!caughtUp) return;
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
