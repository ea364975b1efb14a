import fs from 'node:fs';
import path from 'node:path';
import { cannon, medianOf } from './cannon.ts';
import { type Interleaved, printComparison } from './comparison.ts';
import { lintBench } from './lint-bench.ts';
import { printLintReport, writeLintResult } from './lint-report.ts';
import { type Options, options } from './options.ts';
import { readsFor } from './reads.ts';
import { type Measure, printReport } from './report.ts';
import { storage } from './storage.ts';
import { type Benched, benchStore } from './store-bench.ts';
import { pgConnections, printStreamsReport, streamsBench } from './streams-bench.ts';
import { printTargets } from './targets.ts';

/**
 * `npm run bench [-- --terms 1000000 --workers 2]`: starts the real service on a temporary
 * SQLite file and on a temporary PostgreSQL database (`--store`), loads N terms through
 * POST /terms/bulk, drives each operation with autocannon beside a bare node:http server and
 * Fastify with the log line (framework-server.ts), both answering bodies of the same size,
 * with the CPU each request cost (cpu.ts), then the mixed load and the start on the loaded
 * store, and prints the figures beside issue 33's targets (targets.ts; the figures also go to
 * bench/results/, which git ignores). Then `glossary lint` on a generated docs tree, beside
 * textlint (lint-bench.ts). A tool, not a test: it asserts nothing. docs/performance.md says
 * how to read it.
 */

const ROOT = path.resolve(import.meta.dirname, '..');

async function main() {
  const o = options();
  const benched: Benched[] = [];
  try {
    for (const store of o.service ? o.stores : []) {
      const one = await benchStore(store, o, ROOT);
      benched.push(one);
      printReport(one.report);
      process.stdout.write('\n');
    }
    const [sqlite, postgres] = benched;
    let reads: Interleaved[] | undefined;
    if (sqlite && postgres) {
      reads = await interleaved(sqlite, postgres, o);
      printComparison(sqlite.report, postgres.report, reads);
    }
    // Last, once no read needs the services: each stopped and timed starting again.
    for (const one of benched) one.report.startUp = await one.startUp();
    for (const one of benched) {
      const file = resultFile(`${one.report.date}-${one.report.store}`, o);
      fs.writeFileSync(file, `${JSON.stringify(one.report, null, 2)}\n`);
      process.stdout.write(`results: ${path.relative(ROOT, file)}\n`);
    }
    if (sqlite && postgres) {
      const file = resultFile(`${sqlite.report.date}-comparison`, o);
      fs.writeFileSync(file, `${JSON.stringify({ options: o, reads }, null, 2)}\n`);
      process.stdout.write(`results: ${path.relative(ROOT, file)}\n`);
    }
    if (benched.length) {
      process.stdout.write('\n');
      printTargets(
        benched.map((one) => one.report),
        reads,
      );
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

/**
 * The reads of both stores measured in turn, run by run (the store that goes first alternates),
 * with both services and their data alive at once: the PostgreSQL/SQLite ratio then compares
 * the same minutes of a machine whose speed drifts, which one store after the other does not.
 */
async function interleaved(sqlite: Benched, postgres: Benched, o: Options): Promise<Interleaved[]> {
  const results: Interleaved[] = [];
  for (const read of readsFor(o)) {
    const runs: Record<'sqlite' | 'postgres', Measure[]> = { sqlite: [], postgres: [] };
    for (let run = 0; run < o.runs; run += 1) {
      process.stderr.write(`interleaved ${read.name}: run ${run + 1}/${o.runs}\n`);
      const measure = async (store: 'sqlite' | 'postgres') => {
        const { base, meter } = store === 'sqlite' ? sqlite : postgres;
        const request = () => ({ path: read.path() });
        runs[store].push(await cannon(base, o, request, read.connections, meter));
      };
      const order =
        run % 2 === 0 ? (['sqlite', 'postgres'] as const) : (['postgres', 'sqlite'] as const);
      for (const store of order) await measure(store);
    }
    results.push({
      key: read.key,
      name: read.name,
      sqlite: medianOf(runs.sqlite),
      postgres: medianOf(runs.postgres),
    });
  }
  return results;
}

function resultFile(stem: string, o: Options): string {
  const out = path.join(ROOT, 'bench', 'results');
  fs.mkdirSync(out, { recursive: true });
  return path.join(out, `${stem.replaceAll(':', '-')}-${o.terms}-terms-${o.workers}w.json`);
}

main().catch((error) => {
  process.stderr.write(`bench: ${(error as Error).stack ?? error}\n`);
  process.exit(1);
});
