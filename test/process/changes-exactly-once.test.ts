import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { backends } from '../helpers/backends.ts';
import { markerWrites, matchAcknowledged, runWriters } from '../helpers/change-writers.ts';
import { eventually } from '../helpers/eventually.ts';
import {
  type Follower,
  pollFollower,
  settledFeed,
  streamFollower,
} from '../helpers/feed-followers.ts';
import { killLeftovers, type ServerProcess, startService } from '../helpers/server-process.ts';

/**
 * changes-and-webhooks.md, "Exactly once, in order", against real service processes: on
 * PostgreSQL two instances on one database, on SQLite one service with WORKERS=2 on one file.
 * Sixteen clients write through both (creations, bulk imports, edits, deletions, restores)
 * while followers on both long-poll `GET /changes?since=<next>` and read its event stream
 * (one of them leaving and coming back with `Last-Event-ID` again and again).
 * Every follower must end with exactly the feed as a reader paging from 0 sees it at the end,
 * each change once and in order, and every acknowledged write must be in it.
 */

const CLIENTS = 16;
/** How long the writers write (the load's length; nothing is asserted about time). */
const WRITE_MS = 4000;

/** The pids whose request log lines match. */
function servingPids(servers: ServerProcess[], match: (url: string, method: string) => boolean) {
  const pids = new Set<unknown>();
  for (const server of servers) {
    for (const line of server.logs) {
      if (line.msg === 'request completed' && match(String(line.url), String(line.method))) {
        pids.add(line.pid);
      }
    }
  }
  return pids;
}

for (const backend of backends()) {
  const shape = backend.name === 'sqlite' ? 'one service with WORKERS=2' : 'two service instances';
  describe(`GET /changes under concurrent writers: ${shape} on one ${backend.name} database`, () => {
    test('every follower sees every acknowledged change exactly once, in order, as the final feed has it', async (t) => {
      const location = await backend.location();
      const services: ServerProcess[] = [];
      const followers: Follower[] = [];
      try {
        const env = { DATABASE_URL: location.url };
        if (backend.name === 'sqlite') {
          services.push(await startService({ ...env, WORKERS: '2' }));
        } else {
          // One after the other: the second does not race the first's migrations.
          services.push(await startService(env));
          services.push(await startService(env));
        }
        // Through the shared port, the connections are spread over both workers.
        const urls =
          services.length === 2
            ? services.map((s) => s.url)
            : [services[0]?.url as string, services[0]?.url as string];
        urls.forEach((url, i) => {
          followers.push(pollFollower(`long poll ${i}`, url));
          followers.push(
            pollFollower(`long poll ${i} (limit 7, wait 1)`, url, { limit: 7, wait: 1 }),
          );
          followers.push(streamFollower(`event stream ${i}`, url));
        });
        // Leaves and comes back with Last-Event-ID every 97 changes.
        const rejoining = streamFollower(
          `event stream ${urls.length - 1}, rejoining`,
          urls.at(-1) as string,
          {
            reconnectEvery: 97,
          },
        );
        followers.push(rejoining);

        let stopped = false;
        const writing = runWriters({ urls, clients: CLIENTS, stopped: () => stopped });
        await new Promise((resolve) => setTimeout(resolve, WRITE_MS));
        stopped = true;
        const writes = await writing;
        const markers = await markerWrites(services.map((service) => service.url));
        writes.push(...markers);

        const markerIds = markers.flatMap((write) => write.ids);
        const whole = await settledFeed(urls[0] as string, markerIds);
        assert.deepEqual(
          await settledFeed(urls[1] as string, markerIds),
          whole,
          'both instances give one feed',
        );
        const acknowledged = matchAcknowledged(writes, whole);
        const last = whole.at(-1)?.revision ?? 0;
        await eventually(
          () => followers.every((follower) => follower.last() >= last),
          () =>
            `every follower reached revision ${last}: ${followers.map((f) => `${f.name} at ${f.last()}`).join(', ')}`,
          { withinMs: 30_000 },
        );
        for (const follower of followers) await follower.stop();
        for (const follower of followers) {
          assert.deepEqual(
            follower.changes.map((change) => change.revision),
            whole.map((change) => change.revision),
            `${follower.name}: the revisions it saw`,
          );
          assert.deepEqual(follower.changes, whole, `${follower.name}: the changes it saw`);
        }

        assert.ok(rejoining.connections() > 1, 'the event stream was joined again');
        // The load really went through both processes, writes and follows alike.
        const isWrite = (url: string, method: string) =>
          method !== 'GET' && url.startsWith('/terms');
        assert.equal(servingPids(services, isWrite).size, 2, 'both processes took writes');
        assert.equal(
          servingPids(services, (url) => url.startsWith('/changes?since=')).size,
          2,
          'both processes answered long polls',
        );
        const types = new Map<string, number>();
        for (const change of whole) types.set(change.type, (types.get(change.type) ?? 0) + 1);
        t.diagnostic(
          `${writes.length} writes acknowledged, ${whole.length} changes (${[...types].map(([type, n]) => `${n} ${type}`).join(', ')}), ${acknowledged.size} matched to writes, ${followers.length} followers each saw all ${whole.length}, the rejoining event stream in ${rejoining.connections()} connections`,
        );
      } finally {
        await Promise.allSettled(followers.map((follower) => follower.stop()));
        await Promise.all(services.map((service) => service.stop()));
        await killLeftovers();
        await location.dispose();
      }
    });
  });
}
