import { formatCpu } from './cpu.ts';
import type { Mixed } from './mixed-load.ts';
import type { ReadKey } from './reads.ts';
import type { StartUp } from './start-up.ts';

/** The benchmark's figures and their table on stdout. */

export interface Measure {
  rps: number;
  p50: number;
  p99: number;
  /** Non-2xx answers, errors and timeouts over all runs. */
  failed: number;
  /** CPU a request cost the server (its process and workers), µs: user + system. */
  cpuUs?: number;
  /** On PostgreSQL, what it cost the backends serving the bench's database, µs. */
  dbCpuUs?: number;
  /** For a run right after the import: the p99 of its first second, and of the rest. */
  p99FirstSecond?: number;
  p99AfterFirstSecond?: number;
}

export interface Report {
  store: 'sqlite' | 'postgres';
  date: string;
  machine: {
    cpus: number;
    cpuModel: string;
    memoryGb: number;
    loadAverage: number[];
    node: string;
  };
  options: {
    terms: number;
    workers: number;
    duration: number;
    runs: number;
    connections: number;
    searchConnections: number;
    nodeOptions: string;
  };
  bulk: {
    terms: number;
    termsPerSecond: number;
    wallSeconds: number;
    /** CPU a term cost, µs: the service's, and PostgreSQL's backends'. */
    cpuUs: number;
    dbCpuUs?: number;
    /** Right after the last request: the last term found by `search=` and by `q`. */
    exactAtOnce: boolean;
  };
  /** The one-typo `q` in the first seconds after the load, one run (index merges run then). */
  oneTypoAfterImport: Measure;
  /** Before any term is stored: the runtime and the service's code alone. */
  rssAtStartMb: number;
  /** 10 s after the bulk load, before V8's memory reducer has usually run. */
  rssTenSecondsAfterLoadMb: number;
  /**
   * The lowest reading, taken each second from 10 s to `options.restSeconds` (90 by default)
   * after the bulk load, and how many seconds after it that was.
   */
  rssAtRestMb: number;
  /** Of that reading, the pages of mapped files (`RssFile`): the code and the database file. */
  rssAtRestFileMb: number;
  rssAtRestSeconds: number;
  peakRssDuringLoadMb: number;
  /**
   * Each read beside a bare node:http server and Fastify with the service's log line
   * (`framework-server.ts`), both answering bytes of the same size.
   */
  reads: {
    key: ReadKey;
    name: string;
    bodyBytes: number;
    service: Measure;
    bare: Measure;
    framework: Measure;
  }[];
  mixed: Mixed;
  /** POST /terms with `options.connections` connections, and with one. */
  create: Measure;
  createOneConnection: Measure;
  /** A 100-term page and the full list as a client asking for each encoding receives them. */
  compression: {
    encoding: string;
    pageBytes: number;
    page: Measure;
    fullList?: { bytes: number; totalMs: number };
  }[];
  fullList: {
    terms: number;
    bytes: number;
    ttfbMs: number;
    totalMs: number;
    peakRssMb: number;
    bare: { ttfbMs: number; totalMs: number };
  };
  rssAfterMb: number;
  /** Measured last, once the service is stopped: starts on the loaded store. */
  startUp?: StartUp;
}

/** The median of the runs' figures (the mean of the middle two for an even count). */
export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

export const int = (n: number) => Math.round(n).toLocaleString('en-US');
export const ms = (n: number) => (n >= 100 ? int(n) : n.toFixed(1));

export function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? '').length))) ?? [];
  const line = (r: string[]) =>
    `| ${r.map((cell, c) => cell.padEnd(widths[c] ?? 0)).join(' | ')} |`;
  const [head, ...body] = rows;
  return [
    line(head ?? []),
    `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`,
    ...body.map(line),
  ].join('\n');
}

export function printReport(r: Report): void {
  const out: string[] = [];
  out.push(
    `${r.store}: ${r.options.terms.toLocaleString('en-US')} terms, WORKERS=${r.options.workers}${r.options.nodeOptions ? `, NODE_OPTIONS=${r.options.nodeOptions}` : ''}, ${r.machine.cpus} cores (${r.machine.cpuModel}), ${r.machine.memoryGb} GB, node ${r.machine.node}, load average at start ${r.machine.loadAverage.join(' ')}`,
  );
  out.push(
    `autocannon: ${r.options.connections} connections, ${r.options.runs} runs of ${r.options.duration} s each, medians\n`,
  );
  const row = (name: string, bytes: string, m: Measure, fastify?: Measure, bare?: Measure) => [
    name,
    bytes,
    int(m.rps),
    ms(m.p50),
    ms(m.p99),
    formatCpu(m),
    fastify ? int(fastify.rps) : '',
    fastify ? formatCpu(fastify) : '',
    fastify ? (m.rps / fastify.rps).toFixed(2) : '',
    bare ? int(bare.rps) : '',
    bare ? formatCpu(bare) : '',
    bare ? (m.rps / bare.rps).toFixed(2) : '',
    String(m.failed),
  ];
  const c = r.options.connections;
  out.push(
    table([
      [
        'operation',
        'body B',
        'req/s',
        'p50 ms',
        'p99 ms',
        'CPU/req',
        'Fastify+log req/s',
        'its CPU/req',
        'ratio to it',
        'bare req/s',
        'its CPU/req',
        'ratio to it',
        'failed',
      ],
      ...r.reads.map((x) => row(x.name, int(x.bodyBytes), x.service, x.framework, x.bare)),
      row(
        `GET /terms?q= one typo (${r.options.searchConnections} conn.), first ${r.options.duration} s after the import`,
        '',
        r.oneTypoAfterImport,
      ),
      row(
        `mixed load: 70% by id, 20% q, 10% POST (${c} conn.)`,
        `${int(r.mixed.bodyBytes.byId)}, ${int(r.mixed.bodyBytes.q)}`,
        r.mixed.service,
        r.mixed.framework,
      ),
      row('POST /terms (durable), 1 connection', '', r.createOneConnection),
      row(`POST /terms (durable), ${c} connections`, '', r.create),
    ]),
  );
  out.push('');
  out.push(
    table([
      [
        'Accept-Encoding',
        '100-term page B',
        'page req/s',
        'page p99 ms',
        'page CPU/req',
        'full list B',
        'full list ms',
      ],
      ...r.compression.map((c) => {
        const list = c.fullList ?? { bytes: r.fullList.bytes, totalMs: r.fullList.totalMs };
        return [
          c.encoding,
          int(c.pageBytes),
          int(c.page.rps),
          ms(c.page.p99),
          formatCpu(c.page),
          int(list.bytes),
          ms(list.totalMs),
        ];
      }),
    ]),
  );
  out.push('');
  out.push(
    table([
      ['figure', 'service', 'bare node:http'],
      [
        'bulk import (10,000 per request)',
        `${int(r.bulk.termsPerSecond)} terms/s, ${formatCpu(r.bulk)} a term`,
        '',
      ],
      [
        `full GET /terms (${int(r.fullList.terms)} terms, ${(r.fullList.bytes / 2 ** 20).toFixed(0)} MiB): first byte`,
        `${ms(r.fullList.ttfbMs)} ms`,
        `${ms(r.fullList.bare.ttfbMs)} ms`,
      ],
      [
        'full GET /terms: total',
        `${ms(r.fullList.totalMs)} ms`,
        `${ms(r.fullList.bare.totalMs)} ms`,
      ],
      ['full GET /terms: peak server RSS (sampled)', `${r.fullList.peakRssMb} MB`, ''],
      ['RSS at start, empty database', `${r.rssAtStartMb} MB`, ''],
      ['RSS 10 s after loading', `${r.rssTenSecondsAfterLoadMb} MB`, ''],
      [
        'RSS at rest, lowest until --rest s after loading',
        `${r.rssAtRestMb} MB at ${r.rssAtRestSeconds} s (${r.rssAtRestFileMb} MB of mapped files)`,
        '',
      ],
      ['peak RSS during the bulk load (VmHWM)', `${r.peakRssDuringLoadMb} MB`, ''],
    ]),
  );
  process.stdout.write(`${out.join('\n')}\n`);
}
