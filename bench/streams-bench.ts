import http from 'node:http';
import pg from 'pg';
import { freePort, rssMb, start, stop, waitUntilUp } from './processes.ts';
import { median } from './report.ts';

/**
 * `npm run bench -- --only streams`: what idle event streams cost the service. Opens N
 * `GET /changes` streams (Accept: text/event-stream) to the real service, then measures its
 * resident memory and (PostgreSQL) its database connections before and after, and how long
 * one change takes to reach every stream (median of `runs` changes). A tool, not a test.
 */

export interface StreamsOptions {
  streams: number;
  runs: number;
  /** DATABASE_URL of a fresh store, and a way to count its connections (PostgreSQL). */
  url: string;
  connections?: () => Promise<number>;
  root: string;
}

export interface StreamsReport {
  streams: number;
  rssBeforeMb: number;
  rssAfterMb: number;
  kbPerStream: number;
  connectionsBefore: number | null;
  connectionsAfter: number | null;
  /** Milliseconds from a POST's answer until the last stream had the change. */
  fanOutMs: number;
  fanOutRunsMs: number[];
}

/** An open stream: resolves `waitFor(n)` once it has seen `n` changes. */
function openStream(
  base: string,
  since: number,
): Promise<{ seen: () => number; close: () => void }> {
  return new Promise((resolve, reject) => {
    let seen = 0;
    const request = http.get(
      `${base}/changes?since=${since}`,
      { headers: { accept: 'text/event-stream' }, agent: false },
      (response) => {
        response.setEncoding('utf8');
        response.on('data', (text: string) => {
          seen += text.split('\nevent: ').length - 1;
        });
        resolve({ seen: () => seen, close: () => request.destroy() });
      },
    );
    request.on('error', reject);
  });
}

async function settleRss(pid: number): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 1000));
  return rssMb(pid).total;
}

export async function streamsBench(o: StreamsOptions): Promise<StreamsReport> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const service = start(
    ['--enable-source-maps', 'dist/service/server.js'],
    { PORT: String(port), DATABASE_URL: o.url, LOG_LEVEL: 'warn', MAX_CONNECTIONS: '100000' },
    o.root,
  );
  try {
    await waitUntilUp(`${base}/healthz`, service);
    const pid = service.pid ?? 0;
    // Warm: one stream, one change, so the first measurement is not the start-up's.
    const warm = await openStream(base, 0);
    await post(base, 0);
    warm.close();
    const since = ((await (await fetch(`${base}/changes?limit=1000`)).json()) as { next: number })
      .next;
    const rssBeforeMb = await settleRss(pid);
    const connectionsBefore = (await o.connections?.()) ?? null;
    const streams = [];
    for (let i = 0; i < o.streams; i += 1) streams.push(await openStream(base, since));
    const rssAfterMb = await settleRss(pid);
    const connectionsAfter = (await o.connections?.()) ?? null;
    const fanOutRunsMs: number[] = [];
    for (let run = 1; run <= o.runs; run += 1) {
      await post(base, run);
      const answered = performance.now();
      while (streams.some((stream) => stream.seen() < run)) {
        await new Promise((resolve) => setImmediate(resolve));
      }
      fanOutRunsMs.push(performance.now() - answered);
    }
    for (const stream of streams) stream.close();
    return {
      streams: o.streams,
      rssBeforeMb,
      rssAfterMb,
      kbPerStream: ((rssAfterMb - rssBeforeMb) * 1024) / o.streams,
      connectionsBefore,
      connectionsAfter,
      fanOutMs: median(fanOutRunsMs),
      fanOutRunsMs,
    };
  } finally {
    await stop(service);
  }
}

async function post(base: string, id: number): Promise<void> {
  const response = await fetch(`${base}/terms`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      id,
      term: `Stream term ${id}`,
      definition: 'Made to reach every stream.',
      category: 'backend',
    }),
  });
  if (response.status !== 201) throw new Error(`POST /terms answered ${response.status}`);
}

/** How many connections the service holds to its PostgreSQL database. */
export function pgConnections(url: string): () => Promise<number> {
  const database = new URL(url).pathname.slice(1);
  return async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
        [database],
      );
      return rows[0]?.n ?? 0;
    } finally {
      await client.end();
    }
  };
}

export function printStreamsReport(store: string, r: StreamsReport): void {
  const connections =
    r.connectionsBefore === null
      ? 'no database connections (SQLite)'
      : `database connections ${r.connectionsBefore} before, ${r.connectionsAfter} after`;
  process.stdout.write(
    `${store}: ${r.streams} idle event streams: RSS ${r.rssBeforeMb.toFixed(1)} MB -> ${r.rssAfterMb.toFixed(1)} MB ` +
      `(${r.kbPerStream.toFixed(1)} KB a stream); ${connections}; ` +
      `one change reached all of them in ${r.fanOutMs.toFixed(1)} ms (median of ${r.fanOutRunsMs.length}: ${r.fanOutRunsMs.map((ms) => ms.toFixed(1)).join(', ')})\n`,
  );
}
