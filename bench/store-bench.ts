import os from 'node:os';
import { bodySize, cannon, fullRead, medianOf } from './cannon.ts';
import { type CpuMeter, cpuMeter } from './cpu.ts';
import { mixedLoad } from './mixed-load.ts';
import type { Options, Store } from './options.ts';
import { freePort, peakRssMb, rssMb, start, stop, waitUntilUp } from './processes.ts';
import { oneTypoPath, readsFor } from './reads.ts';
import { type Measure, median, type Report } from './report.ts';
import { type StartUp, startUp } from './start-up.ts';
import { storage } from './storage.ts';
import { identifier, term } from './terms.ts';

/** One store's part of the bench: the service on it, loaded, read, written, timed at start. */

export interface Benched {
  report: Report;
  /** The store's service, still running (for the interleaved reads). */
  base: string;
  meter: CpuMeter;
  /** Stops the service and times starts on the loaded store (start-up.ts). */
  startUp: () => Promise<StartUp>;
  cleanup: () => Promise<void>;
}

const SERVICE_ARGS = ['--enable-source-maps', 'dist/service/server.js'];
const log = (line: string) => process.stderr.write(`${line}\n`);

/** Loads the terms through the public bulk endpoint, 10,000 a request. */
async function bulkLoad(base: string, o: Options, meter: CpuMeter): Promise<Report['bulk']> {
  log(`loading ${o.terms} terms ...`);
  const batchSize = 10_000;
  let requestMs = 0;
  const wall0 = performance.now();
  const before = await meter.read();
  for (let first = 0; first < o.terms; first += batchSize) {
    const batch = [];
    for (let i = first; i < Math.min(o.terms, first + batchSize); i += 1) batch.push(term(i));
    const body = JSON.stringify(batch);
    const t0 = performance.now();
    const res = await fetch(`${base}/terms/bulk`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    const results = (await res.json()) as { status: string }[];
    requestMs += performance.now() - t0;
    if (res.status !== 207 || results.some((r) => r.status !== 'created')) {
      throw new Error(`bulk load failed at ${first}: ${res.status}`);
    }
  }
  const cost = await meter.since(before, o.terms);
  // Search exact at once: the last term imported found by its number and by its identifier.
  const last = o.terms - 1;
  const finds = async (query: string) => {
    const res = await fetch(`${base}/terms?${query}`);
    return ((await res.json()) as { id: number }[]).some((t) => t.id === last);
  };
  const exactAtOnce =
    (await finds(`search=${last}`)) && (await finds(`q=${identifier(last)}&limit=100`));
  return {
    terms: o.terms,
    termsPerSecond: Math.round(o.terms / (requestMs / 1000)),
    wallSeconds: Math.round((performance.now() - wall0) / 100) / 10,
    cpuUs: cost.serviceUs,
    ...(cost.dbUs !== undefined && { dbCpuUs: cost.dbUs }),
    exactAtOnce,
  };
}

export async function benchStore(store: Store, o: Options, root: string): Promise<Benched> {
  const stored = await storage(store, o);
  const serviceEnv = {
    DATABASE_URL: stored.url,
    LOG_LEVEL: o.logLevel,
    WORKERS: String(o.workers),
    ...(o.nodeOptions && { NODE_OPTIONS: o.nodeOptions }),
  };
  const servicePort = await freePort();
  const base = `http://127.0.0.1:${servicePort}`;
  const service = start(SERVICE_ARGS, { ...serviceEnv, PORT: String(servicePort) }, root);
  const barePort = await freePort();
  const bareBase = `http://127.0.0.1:${barePort}`;
  const bare = start(['--import', 'tsx', 'bench/bare-server.ts'], { PORT: String(barePort) }, root);
  const frameworkPort = await freePort();
  const frameworkBase = `http://127.0.0.1:${frameworkPort}`;
  const framework = start(
    ['--import', 'tsx', 'bench/framework-server.ts'],
    { PORT: String(frameworkPort), LOG_LEVEL: o.logLevel },
    root,
  );
  const cleanup = async () => {
    await Promise.all([stop(service), stop(bare), stop(framework)]);
    await stored.dispose();
  };
  try {
    await waitUntilUp(`${base}/readyz`, service);
    await waitUntilUp(`${bareBase}/bytes/2`, bare);
    await waitUntilUp(`${frameworkBase}/bytes/2`, framework);
    const pid = service.pid as number;
    const meter = cpuMeter(pid, stored.backendPids);
    const meters = {
      service: meter,
      bare: cpuMeter(bare.pid as number),
      framework: cpuMeter(framework.pid as number),
    };
    const rssAtStartMb = Math.round(rssMb(pid).total);
    const report = {
      store,
      date: new Date().toISOString(),
      machine: {
        cpus: os.availableParallelism(),
        cpuModel: os.cpus()[0]?.model ?? 'unknown',
        memoryGb: Math.round(os.totalmem() / 2 ** 30),
        loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
        node: process.version,
      },
      options: o,
      reads: [],
      rssAtStartMb,
    } as unknown as Report;

    report.bulk = await bulkLoad(base, o, meter);
    const loaded = performance.now();
    report.peakRssDuringLoadMb = Math.round(peakRssMb(pid));
    log(`bulk: ${report.bulk.termsPerSecond} terms/s`);

    // Issue 33's one-typo row: in the first seconds after an import, while the quiet-time
    // index merges (SQLite) or the GIN pending lists (PostgreSQL) are still to be done.
    log(`one-typo q right after the import (${o.duration} s)`);
    report.oneTypoAfterImport = await cannon(
      base,
      o,
      () => ({ path: oneTypoPath(o.terms) }),
      o.searchConnections,
      meter,
      true,
    );

    // PostgreSQL after a bulk load: what autovacuum would soon do anyway (fresh statistics,
    // the GIN pending lists merged), done now rather than in the middle of a measurement.
    await stored.settle();
    // At rest: V8 gives the garbage of the load back only when its memory reducer runs, a
    // garbage collection it starts on its own once allocation has stayed low for some seconds
    // (half a minute or more on a busy machine; RSS stays at its loaded size until then), and
    // then in one step. Read 10 s after the load, then each second until `--rest` seconds
    // after it (90 by default): at rest is the lowest reading, with when it was seen.
    const after = (ms: number) =>
      new Promise((resolve) => setTimeout(resolve, Math.max(0, loaded + ms - performance.now())));
    await after(10_000);
    const tenSeconds = rssMb(pid);
    report.rssTenSecondsAfterLoadMb = Math.round(tenSeconds.total);
    report.rssAtRestMb = report.rssTenSecondsAfterLoadMb;
    report.rssAtRestFileMb = Math.round(tenSeconds.file);
    report.rssAtRestSeconds = 10;
    for (let second = 11; second <= o.restSeconds; second += 1) {
      await after(second * 1000);
      const now = rssMb(pid);
      if (Math.round(now.total) < report.rssAtRestMb) {
        report.rssAtRestMb = Math.round(now.total);
        report.rssAtRestFileMb = Math.round(now.file);
        report.rssAtRestSeconds = second;
      }
    }

    for (const read of readsFor(o)) {
      const size = await bodySize(base, read.path);
      const runs: Record<'service' | 'bare' | 'framework', Measure[]> = {
        service: [],
        bare: [],
        framework: [],
      };
      const same = () => ({ path: `/bytes/${size}` });
      for (let run = 0; run < o.runs; run += 1) {
        log(`${read.name}: run ${run + 1}/${o.runs}`);
        const own = () => ({ path: read.path() });
        runs.service.push(await cannon(base, o, own, read.connections, meters.service));
        runs.bare.push(await cannon(bareBase, o, same, read.connections, meters.bare));
        runs.framework.push(
          await cannon(frameworkBase, o, same, read.connections, meters.framework),
        );
      }
      report.reads.push({
        key: read.key,
        name: read.name,
        bodyBytes: size,
        service: medianOf(runs.service),
        bare: medianOf(runs.bare),
        framework: medianOf(runs.framework),
      });
    }

    let nextId = o.terms;
    const newTerm = () => term(nextId++);
    report.mixed = await mixedLoad(base, frameworkBase, o, newTerm, meters);

    // Compressed pages: what a client that asks for gzip or br receives, and how fast.
    report.compression = [];
    for (const encoding of ['identity', 'gzip', 'br']) {
      const headers = { 'accept-encoding': encoding };
      const page = await fullRead(`${base}/terms?limit=100`, undefined, headers);
      const runs: Measure[] = [];
      for (let run = 0; run < o.runs; run += 1) {
        log(`GET /terms?limit=100, ${encoding}: run ${run + 1}/${o.runs}`);
        const request = () => ({ path: '/terms?limit=100', headers });
        runs.push(await cannon(base, o, request, o.connections, meter));
      }
      report.compression.push({ encoding, pageBytes: page.bytes, page: medianOf(runs) });
    }

    const post = () => ({
      path: '/terms',
      method: 'POST' as const,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(newTerm()),
    });
    const writes: Measure[] = [];
    const singleWrites: Measure[] = [];
    for (let run = 0; run < o.runs; run += 1) {
      log(`POST /terms, 1 and ${o.connections} connections: run ${run + 1}/${o.runs}`);
      singleWrites.push(await cannon(base, o, post, 1, meter));
      writes.push(await cannon(base, o, post, o.connections, meter));
    }
    report.create = medianOf(writes);
    report.createOneConnection = medianOf(singleWrites);

    const lists = [];
    const bareLists = [];
    for (let run = 0; run < o.runs; run += 1) {
      log(`full GET /terms: run ${run + 1}/${o.runs}`);
      const list = await fullRead(`${base}/terms`, pid);
      lists.push(list);
      bareLists.push(await fullRead(`${bareBase}/stream/${list.bytes}?chunk=65536`));
    }
    report.fullList = {
      terms: nextId,
      bytes: median(lists.map((l) => l.bytes)),
      ttfbMs: median(lists.map((l) => l.ttfbMs)),
      totalMs: median(lists.map((l) => l.totalMs)),
      peakRssMb: Math.round(Math.max(...lists.map((l) => l.peakRssMb ?? 0))),
      bare: {
        ttfbMs: median(bareLists.map((l) => l.ttfbMs)),
        totalMs: median(bareLists.map((l) => l.totalMs)),
      },
    };
    for (const entry of report.compression) {
      if (entry.encoding === 'identity') continue;
      log(`full GET /terms, ${entry.encoding}`);
      const list = await fullRead(`${base}/terms`, undefined, {
        'accept-encoding': entry.encoding,
      });
      entry.fullList = { bytes: list.bytes, totalMs: list.totalMs };
    }
    report.rssAfterMb = Math.round(rssMb(pid).total);

    return {
      report,
      base,
      meter,
      startUp: async () => {
        await stop(service);
        const loadedStore = await startUp(
          SERVICE_ARGS,
          serviceEnv,
          root,
          o.starts,
          'the loaded store',
        );
        const empty = await storage(store, o);
        try {
          const env = { ...serviceEnv, DATABASE_URL: empty.url };
          return {
            ...loadedStore,
            empty: await startUp(SERVICE_ARGS, env, root, o.starts, 'an empty store'),
          };
        } finally {
          await empty.dispose();
        }
      },
      cleanup,
    };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
