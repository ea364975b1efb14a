/** The benchmark's figures and their table on stdout. */

export interface Measure {
  rps: number;
  p50: number;
  p99: number;
  /** Non-2xx answers, errors and timeouts over all runs. */
  failed: number;
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
    nodeOptions: string;
  };
  bulk: { terms: number; termsPerSecond: number; wallSeconds: number };
  /** Before any term is stored: the runtime and the service's code alone. */
  rssAtStartMb: number;
  /** 10 s after the bulk load, before V8's memory reducer has usually run. */
  rssTenSecondsAfterLoadMb: number;
  /** 60 s after the bulk load. */
  rssAtRestMb: number;
  peakRssDuringLoadMb: number;
  /**
   * Each read beside a bare node:http server and Fastify with the service's log line
   * (`framework-server.ts`), both answering bytes of the same size.
   */
  reads: { name: string; bodyBytes: number; service: Measure; bare: Measure; framework: Measure }[];
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
const ms = (n: number) => (n >= 100 ? int(n) : n.toFixed(1));

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
  out.push(
    table([
      [
        'operation',
        'body B',
        'req/s',
        'p50 ms',
        'p99 ms',
        'bare req/s',
        'bare p50',
        'bare p99',
        'ratio',
        'Fastify+log req/s',
        'ratio to it',
        'failed',
      ],
      ...r.reads.map((x) => [
        x.name,
        int(x.bodyBytes),
        int(x.service.rps),
        ms(x.service.p50),
        ms(x.service.p99),
        int(x.bare.rps),
        ms(x.bare.p50),
        ms(x.bare.p99),
        (x.service.rps / x.bare.rps).toFixed(2),
        int(x.framework.rps),
        (x.service.rps / x.framework.rps).toFixed(2),
        String(x.service.failed),
      ]),
      [
        'POST /terms (durable), 1 connection',
        '',
        int(r.createOneConnection.rps),
        ms(r.createOneConnection.p50),
        ms(r.createOneConnection.p99),
        '',
        '',
        '',
        '',
        '',
        '',
        String(r.createOneConnection.failed),
      ],
      [
        `POST /terms (durable), ${r.options.connections} connections`,
        '',
        int(r.create.rps),
        ms(r.create.p50),
        ms(r.create.p99),
        '',
        '',
        '',
        '',
        '',
        '',
        String(r.create.failed),
      ],
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
      ['bulk import (10,000 per request)', `${int(r.bulk.termsPerSecond)} terms/s`, ''],
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
      ['RSS at rest, 60 s after loading', `${r.rssAtRestMb} MB`, ''],
      ['peak RSS during the bulk load (VmHWM)', `${r.peakRssDuringLoadMb} MB`, ''],
    ]),
  );
  process.stdout.write(`${out.join('\n')}\n`);
}

/** The reads of both stores, measured in turn run by run (`interleaved` in bench.ts). */
export interface Interleaved {
  name: string;
  sqlite: Measure;
  postgres: Measure;
}

/**
 * PostgreSQL beside SQLite: the reads as measured interleaved (the two services alive at once,
 * measured in turn in every run, so both see the machine of the same minutes); the writes and
 * the bulk import from each store's own part of the run, one after the other.
 */
export function printComparison(sqlite: Report, postgres: Report, reads: Interleaved[]): void {
  const row = (name: string, a: Measure, b: Measure) => [
    name,
    int(a.rps),
    ms(a.p99),
    int(b.rps),
    ms(b.p99),
    (b.rps / a.rps).toFixed(2),
  ];
  const rows = reads.map((read) => row(read.name, read.sqlite, read.postgres));
  rows.push(
    row(
      'POST /terms, 1 connection (one after the other)',
      sqlite.createOneConnection,
      postgres.createOneConnection,
    ),
    row(
      `POST /terms, ${sqlite.options.connections} connections (one after the other)`,
      sqlite.create,
      postgres.create,
    ),
  );
  rows.push([
    'bulk import, terms/s (one after the other)',
    int(sqlite.bulk.termsPerSecond),
    '',
    int(postgres.bulk.termsPerSecond),
    '',
    (postgres.bulk.termsPerSecond / sqlite.bulk.termsPerSecond).toFixed(2),
  ]);
  process.stdout.write(
    `PostgreSQL beside SQLite (reads interleaved, run by run)\n${table([
      ['read', 'SQLite req/s', 'p99 ms', 'PostgreSQL req/s', 'p99 ms', 'PG/SQLite'],
      ...rows,
    ])}\n`,
  );
}
