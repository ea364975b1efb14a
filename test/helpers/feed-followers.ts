import assert from 'node:assert/strict';
import type { ChangeJson } from './change-writers.ts';

/**
 * Clients of GET /changes as a follower would write them: a long poll that keeps asking with
 * `since=next`, and a Server-Sent Events reader. Each records every change it is given and
 * checks, as it goes, that the revisions only grow (so none is given twice).
 */

export interface Follower {
  name: string;
  changes: ChangeJson[];
  /** The highest revision seen so far (0: none). */
  last(): number;
  /** Ends it; rejects with what went wrong, if anything did. */
  stop(): Promise<void>;
}

function take(name: string, changes: ChangeJson[], change: ChangeJson): void {
  const last = changes.at(-1)?.revision ?? 0;
  assert.ok(
    change.revision > last,
    `${name}: revision ${change.revision} came after ${last} (a repeat or out of order)`,
  );
  changes.push(change);
}

/** Loops `GET /changes?since=<next>&limit=...&wait=...` until stopped. */
export function pollFollower(name: string, url: string, { limit = 50, wait = 5 } = {}): Follower {
  const changes: ChangeJson[] = [];
  const abort = new AbortController();
  let since = 0;
  const running = (async () => {
    while (!abort.signal.aborted) {
      let response: Response;
      try {
        response = await fetch(`${url}/changes?since=${since}&limit=${limit}&wait=${wait}`, {
          signal: abort.signal,
        });
      } catch (error) {
        if (abort.signal.aborted) return;
        throw error;
      }
      const text = await response.text().catch((error: unknown) => {
        if (abort.signal.aborted) return undefined;
        throw error;
      });
      if (text === undefined) return;
      assert.equal(
        response.status,
        200,
        `${name}: GET /changes answered ${response.status}: ${text}`,
      );
      const page = JSON.parse(text) as { changes: ChangeJson[]; next: number };
      assert.ok(page.changes.length <= limit, `${name}: more than limit=${limit} changes`);
      for (const change of page.changes) take(name, changes, change);
      assert.equal(page.next, page.changes.at(-1)?.revision ?? since, `${name}: next`);
      since = page.next;
    }
  })();
  // Not left unhandled while the test has not asked yet.
  running.catch(() => undefined);
  return {
    name,
    changes,
    last: () => changes.at(-1)?.revision ?? 0,
    async stop() {
      abort.abort();
      await running;
    },
  };
}

/**
 * Reads `GET /changes` with `Accept: text/event-stream`, event by event, until stopped. Like
 * `EventSource`, it connects again when the stream ends, with `Last-Event-ID` set to the last
 * revision it saw and the URL it started with (`since=0`: the header must win). With
 * `reconnectEvery`, it also leaves after that many changes on one connection and comes back.
 */
export function streamFollower(
  name: string,
  url: string,
  { reconnectEvery = Number.POSITIVE_INFINITY } = {},
): Follower & { connections(): number } {
  const changes: ChangeJson[] = [];
  const abort = new AbortController();
  let connections = 0;
  /** One connection; false once stopped. */
  const connect = async (): Promise<boolean> => {
    const leave = new AbortController();
    const signal = AbortSignal.any([abort.signal, leave.signal]);
    const last = changes.at(-1)?.revision;
    let response: Response;
    try {
      response = await fetch(`${url}/changes?since=0`, {
        headers: {
          accept: 'text/event-stream',
          ...(last === undefined ? {} : { 'last-event-id': String(last) }),
        },
        signal,
      });
    } catch (error) {
      if (abort.signal.aborted) return false;
      throw error;
    }
    connections += 1;
    assert.equal(response.status, 200, `${name}: the event stream answered ${response.status}`);
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    const decoder = new TextDecoder();
    let buffer = '';
    let taken = 0;
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields = new Map<string, string>();
          for (const line of block.split('\n')) {
            const match = /^(id|event|data): (.*)$/.exec(line);
            if (match) fields.set(match[1] as string, match[2] as string);
          }
          const data = fields.get('data');
          if (data === undefined) continue; // a comment or the retry line
          const change = JSON.parse(data) as ChangeJson;
          assert.equal(fields.get('id'), String(change.revision), `${name}: id: is the revision`);
          assert.equal(fields.get('event'), change.type, `${name}: event: is the type`);
          take(name, changes, change);
          taken += 1;
          if (taken >= reconnectEvery) {
            // Whatever else this connection has buffered is read again on the next one.
            leave.abort();
            return true;
          }
        }
      }
    } catch (error) {
      if (abort.signal.aborted) return false;
      if (leave.signal.aborted) return true;
      throw error;
    }
    return !abort.signal.aborted;
  };
  const running = (async () => {
    while (await connect());
  })();
  running.catch(() => undefined);
  return {
    name,
    changes,
    last: () => changes.at(-1)?.revision ?? 0,
    connections: () => connections,
    async stop() {
      abort.abort();
      await running;
    },
  };
}

/**
 * The whole feed, paged from 0 with `since=next`, once it holds every id of `markers` (see
 * `markerWrites`). An empty page alone says nothing: on PostgreSQL the feed holds changes back
 * while a transaction that may have drawn a lower revision runs (any on the server, a dying
 * connection of a killed service among them), and a restarted service answers nothing until
 * its first horizon settles; so an empty page waits (`wait=5`) and is asked again.
 */
export async function settledFeed(url: string, markers: number[]): Promise<ChangeJson[]> {
  const changes: ChangeJson[] = [];
  const missing = new Set(markers);
  const deadline = Date.now() + 60_000;
  let since = 0;
  while (missing.size > 0) {
    assert.ok(Date.now() < deadline, `the markers ${[...missing].join(', ')} never came`);
    const response = await fetch(`${url}/changes?since=${since}&limit=1000&wait=5`);
    assert.equal(response.status, 200, `GET /changes answered ${response.status}`);
    const page = (await response.json()) as { changes: ChangeJson[]; next: number };
    for (const change of page.changes) missing.delete(change.id);
    changes.push(...page.changes);
    since = page.next;
  }
  return changes;
}
