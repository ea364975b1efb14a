import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { InjectOptions } from 'fastify';
import { newToken } from '../../src/glossary/access.ts';
import type { TermStore } from '../../src/glossary/term-store.ts';
import { buildApp } from '../../src/http/app.ts';
import { sampleTerm, startApp, TEST_CONFIG, type TestApp } from '../helpers/app.ts';
import { backends } from '../helpers/backends.ts';
import { eventually } from '../helpers/eventually.ts';
import { listenApp } from '../helpers/listening-app.ts';

/** GET /changes: changes-and-webhooks.md, "The feed". */

interface ChangeJson {
  revision: number;
  type: string;
  id: number;
  at: string;
  by: string | null;
  term: { id: number; term: string };
}
interface ChangePage {
  changes: ChangeJson[];
  next: number;
}

async function tokenFor(store: TermStore, name: string) {
  const { token, stored } = newToken(name, 'write');
  assert.equal(await store.addToken(stored), 'added');
  return token;
}

/** One Server-Sent Event as the stream framed it; `comment` for a line starting with a colon. */
interface SseEvent {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
}

/** Reads a text/event-stream response, event by event. */
async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event: SseEvent = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) event.comment = line.slice(1).trim();
        const match = /^(id|event|data): (.*)$/.exec(line);
        if (match) event[match[1] as 'id' | 'event' | 'data'] = match[2];
      }
      yield event;
      end = buffer.indexOf('\n\n');
    }
  }
}

/** The next events of a stream that carry a change, `count` of them. */
async function nextChanges(events: AsyncGenerator<SseEvent>, count: number) {
  const changes: { id: string; event: string; change: ChangeJson }[] = [];
  while (changes.length < count) {
    const { value, done } = await events.next();
    assert.ok(!done, 'the stream ended early');
    if (value.data !== undefined) {
      changes.push({
        id: value.id ?? '',
        event: value.event ?? '',
        change: JSON.parse(value.data) as ChangeJson,
      });
    }
  }
  return changes;
}

for (const backend of backends()) {
  describe(`GET /changes (${backend.name})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp(backend);
    });
    after(() => t.close());

    const changes = async (query = '') => {
      const response = await t.app.inject({ method: 'GET', url: `/changes${query}` });
      assert.equal(response.statusCode, 200, response.body);
      return response.json() as ChangePage;
    };

    test('an empty glossary has no changes, and next stays where it was asked', async () => {
      assert.deepEqual(await changes(), { changes: [], next: 0 });
      assert.deepEqual(await changes('?since=41'), { changes: [], next: 41 });
    });

    test('every kind of change, in order, with the facts of the history', async () => {
      const token = await tokenFor(t.store, 'ci');
      const auth = { authorization: `Bearer ${token}` };
      const send = async (
        method: 'POST' | 'PUT' | 'DELETE',
        url: string,
        payload?: InjectOptions['payload'],
      ) => {
        const response = await t.app.inject({ method, url, payload, headers: auth });
        assert.ok(response.statusCode < 300, `${method} ${url}: ${response.body}`);
        return response;
      };
      const start = (await changes()).next;
      await send('POST', '/terms', sampleTerm(1));
      await send('POST', '/terms/bulk', [sampleTerm(2), sampleTerm(3)]);
      await send('PUT', '/terms/1', sampleTerm(1, { term: 'Changed' }));
      await send('DELETE', '/terms/2');
      const history = await t.app.inject({ method: 'GET', url: '/terms/2/history' });
      const created = (history.json() as { revision: number; action: string }[]).find(
        (entry) => entry.action === 'created',
      );
      await send('POST', '/terms/2/restore', { revision: created?.revision });

      const page = await changes(`?since=${start}`);
      assert.deepEqual(
        page.changes.map((change) => [change.type, change.id, change.by]),
        [
          ['term.created', 1, 'ci'],
          ['term.created', 2, 'ci'],
          ['term.created', 3, 'ci'],
          ['term.updated', 1, 'ci'],
          ['term.deleted', 2, 'ci'],
          ['term.restored', 2, 'ci'],
        ],
      );
      const revisions = page.changes.map((change) => change.revision);
      assert.deepEqual(
        revisions,
        [...revisions].sort((a, b) => a - b),
      );
      assert.equal(page.next, revisions.at(-1));
      assert.equal(page.changes[3]?.term.term, 'Changed');
      assert.equal(page.changes[4]?.term.term, 'Term 2', 'a deletion carries the state deleted');
      for (const change of page.changes) assert.ok(!Number.isNaN(Date.parse(change.at)));

      // Each entry is the history's entry with that revision.
      const ofOne = (await t.app.inject({ method: 'GET', url: '/terms/1/history' })).json() as {
        revision: number;
        at: string;
        term: unknown;
      }[];
      for (const entry of ofOne) {
        const change = page.changes.find((c) => c.revision === entry.revision);
        assert.deepEqual(
          { at: change?.at, term: change?.term },
          { at: entry.at, term: entry.term },
        );
      }

      // Paging with `next` gives each change once.
      const seen: number[] = [];
      let since = start;
      for (;;) {
        const next = await changes(`?since=${since}&limit=2`);
        if (next.changes.length === 0) break;
        assert.ok(next.changes.length <= 2);
        seen.push(...next.changes.map((change) => change.revision));
        since = next.next;
      }
      assert.deepEqual(seen, revisions);
    });

    test('a limit or wait out of range is 422 at its place', async () => {
      for (const [query, field] of [
        ['limit=0', 'limit'],
        ['limit=1001', 'limit'],
        ['limit=x', 'limit'],
        ['wait=31', 'wait'],
        ['wait=-1', 'wait'],
        ['since=-1', 'since'],
      ] as const) {
        const response = await t.app.inject({ method: 'GET', url: `/changes?${query}` });
        assert.equal(response.statusCode, 422, query);
        const { detail } = response.json() as { detail: { loc: unknown[] }[] };
        assert.deepEqual(detail[0]?.loc, ['query', field], query);
      }
    });

    test('a wait ends on time however the wall clock moves', { timeout: 10_000 }, async (t) => {
      const store = await backend.open();
      const app = await buildApp({ config: TEST_CONFIG, store, logger: false });
      try {
        const since = ((await app.inject({ url: '/changes' })).json() as ChangePage).next;
        // A wall clock set an hour back at each look: a wait timed by it waited an hour.
        const wallClock = Date.now;
        let back = 0;
        t.mock.method(Date, 'now', () => {
          back += 3_600_000;
          return wallClock() - back;
        });
        const quiet = await app.inject({ url: `/changes?since=${since}&wait=0.3` });
        assert.equal(quiet.statusCode, 200, quiet.body);
        assert.deepEqual(quiet.json(), { changes: [], next: since });
      } finally {
        t.mock.restoreAll();
        await app.close();
        await store.close();
      }
    });

    test('wait holds an empty answer until a change made through another store instance', async () => {
      const location = await backend.location();
      const first = await location.open();
      const second = await location.open();
      const app = await buildApp({ config: TEST_CONFIG, store: first, logger: false });
      const other = await buildApp({ config: TEST_CONFIG, store: second, logger: false });
      try {
        const since = ((await app.inject({ url: '/changes' })).json() as ChangePage).next;
        const waiting = app.inject({ url: `/changes?since=${since}&wait=20` });
        // The wait has begun (its first read found nothing) before the change is made.
        await new Promise((resolve) => setTimeout(resolve, 200));
        const made = await other.inject({
          method: 'POST',
          url: '/terms',
          payload: sampleTerm(7),
        });
        assert.equal(made.statusCode, 201);
        const answered = await waiting;
        assert.equal(answered.statusCode, 200, answered.body);
        const page = answered.json() as ChangePage;
        assert.deepEqual(
          page.changes.map((change) => [change.type, change.id]),
          [['term.created', 7]],
        );
        assert.equal(page.next, page.changes[0]?.revision);

        // With nothing coming, the wait ends empty.
        const quiet = (await app.inject({ url: `/changes?since=${page.next}&wait=0.2` })).json();
        assert.deepEqual(quiet, { changes: [], next: page.next });
      } finally {
        await app.close();
        await other.close();
        await first.close();
        await second.close();
        await location.dispose();
      }
    });
  });

  describe(`GET /changes as Server-Sent Events (${backend.name})`, () => {
    test('backlog, live changes, keep-alive comments, and resuming with Last-Event-ID', async () => {
      const served = await listenApp(backend, { changesKeepAliveMs: 100 });
      try {
        const post = (id: number) =>
          fetch(`${served.url}/terms`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(sampleTerm(id)),
          });
        await post(1);
        await post(2);
        const stop = new AbortController();
        const response = await fetch(`${served.url}/changes`, {
          headers: { accept: 'text/event-stream' },
          signal: stop.signal,
        });
        assert.equal(response.status, 200);
        assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
        assert.equal(response.headers.get('cache-control'), 'no-cache');
        assert.ok(response.body);
        const events = sseEvents(response.body);
        const backlog = await nextChanges(events, 2);
        assert.deepEqual(
          backlog.map(({ event, change }) => [event, change.id]),
          [
            ['term.created', 1],
            ['term.created', 2],
          ],
        );
        for (const { id, change } of backlog) assert.equal(id, String(change.revision));

        await post(3);
        const [live] = await nextChanges(events, 1);
        assert.equal(live?.change.id, 3);

        // A comment line comes while nothing changes.
        let comments = 0;
        while (comments < 2) {
          const { value } = await events.next();
          if (value?.comment === 'keep-alive') comments += 1;
        }
        stop.abort();

        // Reconnecting with the last id seen resumes after it (the header wins over since).
        await post(4);
        const done = new AbortController();
        const resumed = await fetch(`${served.url}/changes?since=0`, {
          headers: { accept: 'text/event-stream', 'last-event-id': backlog[1]?.id ?? '' },
          signal: done.signal,
        });
        assert.ok(resumed.body);
        const again = await nextChanges(sseEvents(resumed.body), 2);
        assert.deepEqual(
          again.map(({ change }) => change.id),
          [3, 4],
        );
        done.abort();
      } finally {
        await served.close();
      }
    });

    test('a bad Last-Event-ID is 422 at its place', async () => {
      const t = await startApp(backend);
      try {
        const response = await t.app.inject({
          url: '/changes',
          headers: { accept: 'text/event-stream', 'last-event-id': 'abc' },
        });
        assert.equal(response.statusCode, 422);
        const { detail } = response.json() as { detail: { loc: unknown[] }[] };
        assert.deepEqual(detail[0]?.loc, ['header', 'last-event-id']);
      } finally {
        await t.close();
      }
    });

    test('a thousand idle streams are woken by one change, and closing the service ends them', async () => {
      const served = await listenApp(backend);
      const streams: AsyncGenerator<SseEvent>[] = [];
      // Held: fetch cancels the body of a response that is garbage collected unread.
      const responses: Response[] = [];
      try {
        for (let i = 0; i < 1000; i += 1) {
          const response = await fetch(`${served.url}/changes`, {
            headers: { accept: 'text/event-stream' },
          });
          assert.ok(response.body);
          responses.push(response);
          streams.push(sseEvents(response.body));
        }
        await fetch(`${served.url}/terms`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(sampleTerm(9)),
        });
        const ids = await Promise.all(
          streams.map(async (events) => (await nextChanges(events, 1))[0]?.change.id),
        );
        assert.deepEqual(new Set(ids), new Set([9]));
      } finally {
        await served.close();
      }
      // Every stream ended when the service closed.
      await eventually(
        async () =>
          (await Promise.all(streams.map((events) => events.next()))).every((r) => r.done),
        'every stream ended',
      );
    });

    test('reading needs a token where reads do', async () => {
      const t = await startApp(backend, { readAccess: 'token' });
      try {
        await tokenFor(t.store, 'reader');
        for (const accept of ['application/json', 'text/event-stream']) {
          const response = await t.app.inject({ url: '/changes', headers: { accept } });
          assert.equal(response.statusCode, 401, accept);
        }
      } finally {
        await t.close();
      }
    });
  });
}
