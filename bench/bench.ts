import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { freePort, peakRssMb, rssMb, sampleRss, start, stop, waitUntilUp } from './processes.ts';
import { type Measure, printReport, type Report } from './report.ts';
import { BROAD_WORD, term } from './terms.ts';

/**
 * `npm run bench [-- --terms 1000000 --workers 2]`: starts the real service on a temporary
 * SQLite file, loads N terms through POST /terms/bulk, drives each operation with autocannon
 * beside a bare node:http server answering bodies of the same size, and prints the figures
 * (and writes them to bench/results/). A tool, not a test: it asserts nothing.
 */

const ROOT = path.resolve(import.meta.dirname, '..');
const HELP = `usage: npm run bench -- [options]
  --terms N        terms to load (default 100000)
  --workers N      WORKERS of the service (default 1)
  --duration S     seconds per autocannon run (default 5)
  --runs N         runs per figure; medians are reported (default 3)
  --connections N  concurrent connections of autocannon (default 10)
  --log-level L    LOG_LEVEL of the service (default warn: one log line per request is the
                   service's own cost at info, measured separately if you pass info)
  --node-options S NODE_OPTIONS of the service, e.g. --max-semi-space-size=2`;

function options() {
  const { values } = parseArgs({
    options: {
      terms: { type: 'string', default: '100000' },
      workers: { type: 'string', default: '1' },
      duration: { type: 'string', default: '5' },
      runs: { type: 'string', default: '3' },
      connections: { type: 'string', default: '10' },
      'log-level': { type: 'string', default: 'warn' },
      'node-options': { type: 'string', default: '' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    process.exit(0);
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
    logLevel: String(values['log-level']),
    nodeOptions: String(values['node-options']),
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};
const randomInt = (min: number, max: number) => min + Math.floor(Math.random() * (max - min));

async function cannon(
  url: string,
  o: ReturnType<typeof options>,
  request: () => Partial<autocannon.Request>,
): Promise<Measure> {
  const result = await autocannon({
    url,
    connections: o.connections,
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
function fullRead(url: string, pid?: number) {
  return new Promise<{ ttfbMs: number; totalMs: number; bytes: number; peakRssMb?: number }>(
    (resolve, reject) => {
      const stopSampling = pid === undefined ? undefined : sampleRss(pid);
      const t0 = performance.now();
      http
        .get(url, (res) => {
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

async function main() {
  const o = options();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-bench-'));
  const servicePort = await freePort();
  const base = `http://127.0.0.1:${servicePort}`;
  const service = start(
    ['--enable-source-maps', 'dist/service/server.js'],
    {
      PORT: String(servicePort),
      DATABASE_URL: `sqlite:${path.join(dir, 'glossary.db')}`,
      LOG_LEVEL: o.logLevel,
      WORKERS: String(o.workers),
    },
    ROOT,
  );
  const barePort = await freePort();
  const bareBase = `http://127.0.0.1:${barePort}`;
  const bare = start(['--import', 'tsx', 'bench/bare-server.ts'], { PORT: String(barePort) }, ROOT);
  const cleanup = async () => {
    await Promise.all([stop(service), stop(bare)]);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitUntilUp(`${base}/readyz`, service);
    await waitUntilUp(`${bareBase}/bytes/2`, bare);
    const pid = service.pid as number;
    const rssAtStartMb = Math.round(rssMb(pid).total);
    const log = (line: string) => process.stderr.write(`${line}\n`);
    const report: Report = {
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

    // At rest: V8 gives back heap some seconds after the allocation-heavy load has stopped.
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    report.rssAtRestMb = Math.round(rssMb(pid).total);
    report.peakRssDuringLoadMb = Math.round(peakRssMb(pid));

    const selectiveFrom = Math.max(1000, Math.floor(o.terms / 10));
    const reads: { name: string; path: () => string }[] = [
      { name: 'GET /terms/{id} (random id)', path: () => `/terms/${randomInt(0, o.terms)}` },
      {
        name: 'GET /terms?search= selective',
        path: () => `/terms?search=${randomInt(selectiveFrom, o.terms)}`,
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
    for (const read of reads) {
      const size = await bodySize(base, read.path);
      const service: Measure[] = [];
      const bareRuns: Measure[] = [];
      for (let run = 0; run < o.runs; run += 1) {
        log(`${read.name}: run ${run + 1}/${o.runs}`);
        service.push(await cannon(base, o, () => ({ path: read.path() })));
        bareRuns.push(await cannon(bareBase, o, () => ({ path: `/bytes/${size}` })));
      }
      report.reads.push({
        name: read.name,
        bodyBytes: size,
        service: medianOf(service),
        bare: medianOf(bareRuns),
      });
    }

    let nextId = o.terms;
    const writes: Measure[] = [];
    for (let run = 0; run < o.runs; run += 1) {
      log(`POST /terms: run ${run + 1}/${o.runs}`);
      writes.push(
        await cannon(base, o, () => ({
          path: '/terms',
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(term(nextId++)),
        })),
      );
    }
    report.create = medianOf(writes);

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
    report.rssAfterMb = Math.round(rssMb(pid).total);

    printReport(report);
    const out = path.join(ROOT, 'bench', 'results');
    fs.mkdirSync(out, { recursive: true });
    const file = path.join(
      out,
      `${report.date.replaceAll(':', '-')}-${o.terms}-terms-${o.workers}w.json`,
    );
    fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
    process.stdout.write(`\nresults: ${path.relative(ROOT, file)}\n`);
  } finally {
    await cleanup();
  }
}

main().catch((error) => {
  process.stderr.write(`bench: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
