import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import pg from 'pg';
import { lintBench } from './lint-bench.ts';
import { printLintReport, writeLintResult } from './lint-report.ts';
import { freePort, peakRssMb, rssMb, sampleRss, start, stop, waitUntilUp } from './processes.ts';
import {
  type Interleaved,
  type Measure,
  median,
  printComparison,
  printReport,
  type Report,
} from './report.ts';
import { pgConnections, printStreamsReport, streamsBench } from './streams-bench.ts';
import { BROAD_WORD, term, WORDS } from './terms.ts';

/**
 * `npm run bench [-- --terms 1000000 --workers 2]`: starts the real service on a temporary
 * SQLite file and on a temporary PostgreSQL database (`--store`), loads N terms through
 * POST /terms/bulk, drives each operation with autocannon beside a bare node:http server and
 * Fastify with the log line (framework-server.ts), both answering bodies of the same size,
 * and prints the figures (and writes them to bench/results/, which git ignores). Then
 * `glossary lint` on a generated docs tree, beside textlint (lint-bench.ts). A tool, not a test:
 * it asserts nothing. docs/performance.md says how to read it.
 */

const ROOT = path.resolve(import.meta.dirname, '..');
const HELP = `usage: npm run bench -- [options]
  --store S        sqlite, postgres or both (default both: one after the other, then the
                   reads of the two interleaved, both services running)
  --postgres URL   the PostgreSQL server for --store postgres (default TEST_DATABASE_URL, else
                   postgres://postgres@127.0.0.1:5432/postgres); a database of its own is made
                   there and dropped afterwards
  --terms N        terms to load (default 100000)
  --workers N      WORKERS of the service (default 1)
  --duration S     seconds per autocannon run (default 5)
  --runs N         runs per figure; medians are reported (default 3)
  --connections N  concurrent connections of autocannon (default 32)
  --search-connections N
                   connections for the search reads the targets name (default 32)
  --log-level L    LOG_LEVEL of the service (default info, the service's default: one log
                   line per request, written to /dev/null)
  --node-options S NODE_OPTIONS of the service, e.g. --max-semi-space-size=2
  --only P         service, lint or streams: one part of the bench (default service and
                   lint, the service first; streams: what idle event streams cost)
  --streams N      idle GET /changes event streams --only streams opens (default 1000)
  --lint-files N   docs files \`glossary lint\` reads (default 10000, about 5 KB each)
  --lint-terms N   glossary terms it checks them against, three names to avoid each
                   (default 10000)
  --lint-slice N   Markdown files textlint is compared on (default: as many as it lints in
                   about 30 s)`;

function options() {
  const { values } = parseArgs({
    options: {
      terms: { type: 'string', default: '100000' },
      workers: { type: 'string', default: '1' },
      duration: { type: 'string', default: '5' },
      runs: { type: 'string', default: '3' },
      connections: { type: 'string', default: '32' },
      'search-connections': { type: 'string', default: '32' },
      store: { type: 'string', default: 'both' },
      postgres: {
        type: 'string',
        default: process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
      },
      'log-level': { type: 'string', default: 'info' },
      'node-options': { type: 'string', default: '' },
      only: { type: 'string', default: 'both' },
      streams: { type: 'string', default: '1000' },
      'lint-files': { type: 'string', default: '10000' },
      'lint-terms': { type: 'string', default: '10000' },
      'lint-slice': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    process.exit(0);
  }
  if (!['both', 'service', 'lint', 'streams'].includes(values.only)) {
    process.stderr.write(`bench: --only must be service, lint or streams\n${HELP}\n`);
    process.exit(2);
  }
  const whole = (name: keyof typeof values, min: number) => {
    const raw = String(values[name]);
    if (!/^\d+$/.test(raw) || Number(raw) < min) {
      process.stderr.write(`bench: --${name} must be a whole number >= ${min}\n${HELP}\n`);
      process.exit(2);
    }
    return Number(raw);
  };
  return {
    terms: whole('terms', 1),
    workers: whole('workers', 1),
    duration: whole('duration', 1),
    runs: whole('runs', 1),
    connections: whole('connections', 1),
    searchConnections: whole('search-connections', 1),
    stores: storesOf(String(values.store)),
    postgres: String(values.postgres),
    logLevel: String(values['log-level']),
    nodeOptions: String(values['node-options']),
    service: values.only === 'both' || values.only === 'service',
    lint: values.only === 'both' || values.only === 'lint',
    streams: values.only === 'streams' ? whole('streams', 1) : 0,
    lintFiles: whole('lint-files', 1),
    lintTerms: whole('lint-terms', 1),
    lintSlice: values['lint-slice'] === undefined ? undefined : whole('lint-slice', 1),
  };
}

function storesOf(raw: string): ('sqlite' | 'postgres')[] {
  if (raw === 'both') return ['sqlite', 'postgres'];
  if (raw === 'sqlite' || raw === 'postgres') return [raw];
  process.stderr.write(`bench: --store must be sqlite, postgres or both\n${HELP}\n`);
  process.exit(2);
}

const randomInt = (min: number, max: number) => min + Math.floor(Math.random() * (max - min));

async function cannon(
  url: string,
  o: ReturnType<typeof options>,
  request: () => Partial<autocannon.Request>,
  connections = o.connections,
): Promise<Measure> {
  const result = await autocannon({
    url,
    connections,
    duration: o.duration,
    requests: [{ setupRequest: (req) => ({ ...req, ...request() }) }],
  });
  const failed = result.non2xx + result.errors + result.timeouts;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failed,
  };
}

function medianOf(measures: Measure[]): Measure {
  return {
    rps: median(measures.map((m) => m.rps)),
    p50: median(measures.map((m) => m.p50)),
    p99: median(measures.map((m) => m.p99)),
    failed: measures.reduce((sum, m) => sum + m.failed, 0),
  };
}

/** Average body size of a few answers: what the bare server must send to be comparable. */
async function bodySize(base: string, next: () => string, samples = 20): Promise<number> {
  let bytes = 0;
  for (let i = 0; i < samples; i += 1)
    bytes += (await (await fetch(base + next())).arrayBuffer()).byteLength;
  return Math.max(2, Math.round(bytes / samples));
}

/** One GET read to its end: time to the first byte, total time, bytes, peak server RSS. */
function fullRead(url: string, pid?: number, headers: Record<string, string> = {}) {
  return new Promise<{ ttfbMs: number; totalMs: number; bytes: number; peakRssMb?: number }>(
    (resolve, reject) => {
      const stopSampling = pid === undefined ? undefined : sampleRss(pid);
      const t0 = performance.now();
      http
        .get(url, { headers }, (res) => {
          let ttfb = 0;
          let bytes = 0;
          res.on('data', (chunk: Buffer) => {
            if (bytes === 0) ttfb = performance.now() - t0;
            bytes += chunk.length;
          });
          res.on('end', () =>
            resolve({
              ttfbMs: ttfb,
              totalMs: performance.now() - t0,
              bytes,
              ...(stopSampling && { peakRssMb: stopSampling() }),
            }),
          );
          res.on('error', reject);
        })
        .on('error', reject);
    },
  );
}

interface Read {
  name: string;
  path: () => string;
  connections?: number;
}

/** The reads measured on each store, each a path to ask (random where it says so). */
function readsFor(o: ReturnType<typeof options>): Read[] {
  const selectiveFrom = Math.max(1000, Math.floor(o.terms / 10));
  const search = o.searchConnections;
  return [
    { name: 'GET /terms/{id} (random id)', path: () => `/terms/${randomInt(0, o.terms)}` },
    {
      name: `GET /terms?search= selective (${search} conn.)`,
      path: () => `/terms?search=${randomInt(selectiveFrom, o.terms)}`,
      connections: search,
    },
    {
      name: `GET /terms?q= one typo (${search} conn.)`,
      path: () => {
        const i = randomInt(selectiveFrom, o.terms);
        return `/terms?q=${encodeURIComponent(`${mistyped(term(i).term.split(' ')[1] ?? '')} ${i}`)}`;
      },
      connections: search,
    },
    {
      name: `GET /terms?q=WORD&limit=20 broad (${search} conn.)`,
      path: () => `/terms?q=${WORDS[randomInt(0, WORDS.length)]}&limit=20`,
      connections: search,
    },
    {
      name: `GET /terms?search=${BROAD_WORD}&limit=100 (broad)`,
      path: () => `/terms?search=${BROAD_WORD}&limit=100`,
    },
    {
      name: 'GET /terms?category=devops&limit=100',
      path: () => '/terms?category=devops&limit=100',
    },
  ];
}

/** Where the service keeps its terms for this run, and how to throw it away afterwards. */
async function storage(
  store: 'sqlite' | 'postgres',
  o: ReturnType<typeof options>,
): Promise<{ url: string; settle: () => Promise<void>; dispose: () => Promise<void> }> {
  if (store === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-bench-'));
    return {
      url: `sqlite:${path.join(dir, 'glossary.db')}`,
      settle: async () => undefined,
      dispose: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = `glossary_bench_${Date.now()}`;
  const admin = async (sql: string, database = o.postgres) => {
    const client = new pg.Client({ connectionString: database });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8'`);
  const url = new URL(o.postgres);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    settle: () => admin('VACUUM (ANALYZE) terms', url.toString()),
    dispose: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
  };
}

async function main() {
  const o = options();
  const benched: Benched[] = [];
  try {
    for (const store of o.service ? o.stores : []) benched.push(await benchStore(store, o));
    const [sqlite, postgres] = benched;
    if (sqlite && postgres) {
      const reads = await interleaved(sqlite.base, postgres.base, o);
      printComparison(sqlite.report, postgres.report, reads);
      const file = resultFile(`${sqlite.report.date}-comparison`, o);
      fs.writeFileSync(file, `${JSON.stringify({ options: o, reads }, null, 2)}\n`);
      process.stdout.write(`\nresults: ${path.relative(ROOT, file)}\n`);
    }
  } finally {
    for (const { cleanup } of benched) await cleanup();
  }
  for (const store of o.streams > 0 ? o.stores : []) {
    const stored = await storage(store, o);
    try {
      const report = await streamsBench({
        streams: o.streams,
        runs: o.runs,
        url: stored.url,
        connections: store === 'postgres' ? pgConnections(stored.url) : undefined,
        root: ROOT,
      });
      printStreamsReport(store, report);
    } finally {
      await stored.dispose();
    }
  }
  if (o.lint) {
    const report = await lintBench({
      files: o.lintFiles,
      terms: o.lintTerms,
      runs: o.runs,
      slice: o.lintSlice,
    });
    process.stdout.write('\n');
    printLintReport(report);
    process.stdout.write(`\nresults: ${path.relative(ROOT, writeLintResult(report))}\n`);
  }
}

interface Benched {
  report: Report;
  /** The store's service, still running (for the interleaved reads). */
  base: string;
  cleanup: () => Promise<void>;
}

/**
 * The reads of both stores measured in turn, run by run (the store that goes first alternates),
 * with both services and their data alive at once: the PostgreSQL/SQLite ratio then compares
 * the same minutes of a machine whose speed drifts, which one store after the other does not.
 */
async function interleaved(
  sqliteBase: string,
  postgresBase: string,
  o: ReturnType<typeof options>,
): Promise<Interleaved[]> {
  const results: Interleaved[] = [];
  for (const read of readsFor(o)) {
    const sqlite: Measure[] = [];
    const postgres: Measure[] = [];
    for (let run = 0; run < o.runs; run += 1) {
      process.stderr.write(`interleaved ${read.name}: run ${run + 1}/${o.runs}\n`);
      const measure = (base: string) =>
        cannon(base, o, () => ({ path: read.path() }), read.connections);
      if (run % 2 === 0) {
        sqlite.push(await measure(sqliteBase));
        postgres.push(await measure(postgresBase));
      } else {
        postgres.push(await measure(postgresBase));
        sqlite.push(await measure(sqliteBase));
      }
    }
    results.push({ name: read.name, sqlite: medianOf(sqlite), postgres: medianOf(postgres) });
  }
  return results;
}

function resultFile(stem: string, o: ReturnType<typeof options>): string {
  const out = path.join(ROOT, 'bench', 'results');
  fs.mkdirSync(out, { recursive: true });
  return path.join(out, `${stem.replaceAll(':', '-')}-${o.terms}-terms-${o.workers}w.json`);
}

async function benchStore(
  store: 'sqlite' | 'postgres',
  o: ReturnType<typeof options>,
): Promise<Benched> {
  const stored = await storage(store, o);
  const servicePort = await freePort();
  const base = `http://127.0.0.1:${servicePort}`;
  const service = start(
    ['--enable-source-maps', 'dist/service/server.js'],
    {
      PORT: String(servicePort),
      DATABASE_URL: stored.url,
      LOG_LEVEL: o.logLevel,
      WORKERS: String(o.workers),
    },
    ROOT,
  );
  const barePort = await freePort();
  const bareBase = `http://127.0.0.1:${barePort}`;
  const bare = start(['--import', 'tsx', 'bench/bare-server.ts'], { PORT: String(barePort) }, ROOT);
  const frameworkPort = await freePort();
  const frameworkBase = `http://127.0.0.1:${frameworkPort}`;
  const framework = start(
    ['--import', 'tsx', 'bench/framework-server.ts'],
    { PORT: String(frameworkPort), LOG_LEVEL: o.logLevel },
    ROOT,
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
    const rssAtStartMb = Math.round(rssMb(pid).total);
    const log = (line: string) => process.stderr.write(`${line}\n`);
    const report: Report = {
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

    // Load through the public bulk endpoint, 10,000 terms per request.
    log(`loading ${o.terms} terms ...`);
    const batchSize = 10_000;
    let requestMs = 0;
    const wall0 = performance.now();
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
    report.bulk = {
      terms: o.terms,
      termsPerSecond: Math.round(o.terms / (requestMs / 1000)),
      wallSeconds: Math.round((performance.now() - wall0) / 100) / 10,
    };
    log(`bulk: ${report.bulk.termsPerSecond} terms/s`);

    // PostgreSQL after a bulk load: what autovacuum would soon do anyway (fresh statistics,
    // the GIN pending lists merged), done now rather than in the middle of a measurement.
    if (store === 'postgres') await stored.settle();
    // At rest: V8 gives the garbage of the load back only when its memory reducer runs, a
    // garbage collection it starts on its own once allocation has stayed low for some seconds
    // (up to half a minute on a slow machine; RSS stays at its loaded size until then). Read
    // 10 s after the load, and at rest 60 s after it, when the reducer has had time to run.
    const loaded = performance.now();
    const after = (ms: number) =>
      new Promise((resolve) => setTimeout(resolve, Math.max(0, loaded + ms - performance.now())));
    await after(10_000);
    report.rssTenSecondsAfterLoadMb = Math.round(rssMb(pid).total);
    await after(60_000);
    report.rssAtRestMb = Math.round(rssMb(pid).total);
    report.peakRssDuringLoadMb = Math.round(peakRssMb(pid));

    const reads = readsFor(o);
    for (const read of reads) {
      const size = await bodySize(base, read.path);
      const service: Measure[] = [];
      const bareRuns: Measure[] = [];
      const frameworkRuns: Measure[] = [];
      const same = () => ({ path: `/bytes/${size}` });
      for (let run = 0; run < o.runs; run += 1) {
        log(`${read.name}: run ${run + 1}/${o.runs}`);
        service.push(await cannon(base, o, () => ({ path: read.path() }), read.connections));
        bareRuns.push(await cannon(bareBase, o, same, read.connections));
        frameworkRuns.push(await cannon(frameworkBase, o, same, read.connections));
      }
      report.reads.push({
        name: read.name,
        bodyBytes: size,
        service: medianOf(service),
        bare: medianOf(bareRuns),
        framework: medianOf(frameworkRuns),
      });
    }

    // Compressed pages: what a client that asks for gzip or br receives, and how fast.
    report.compression = [];
    for (const encoding of ['identity', 'gzip', 'br']) {
      const headers = { 'accept-encoding': encoding };
      const page = await fullRead(`${base}/terms?limit=100`, undefined, headers);
      const runs: Measure[] = [];
      for (let run = 0; run < o.runs; run += 1) {
        log(`GET /terms?limit=100, ${encoding}: run ${run + 1}/${o.runs}`);
        runs.push(await cannon(base, o, () => ({ path: '/terms?limit=100', headers })));
      }
      report.compression.push({ encoding, pageBytes: page.bytes, page: medianOf(runs) });
    }

    let nextId = o.terms;
    const post = () => ({
      path: '/terms',
      method: 'POST' as const,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(term(nextId++)),
    });
    const writes: Measure[] = [];
    const singleWrites: Measure[] = [];
    for (let run = 0; run < o.runs; run += 1) {
      log(`POST /terms, 1 and ${o.connections} connections: run ${run + 1}/${o.runs}`);
      singleWrites.push(await cannon(base, o, post, 1));
      writes.push(await cannon(base, o, post));
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

    printReport(report);
    const file = resultFile(`${report.date}-${store}`, o);
    fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(`\nresults: ${path.relative(ROOT, file)}\n\n`);
    return { report, base, cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}

/** A word of the synthetic vocabulary with its third letter changed: one typo, same length. */
function mistyped(word: string): string {
  return `${word.slice(0, 2)}${word[2] === 'x' ? 'y' : 'x'}${word.slice(3)}`;
}

main().catch((error) => {
  process.stderr.write(`bench: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
