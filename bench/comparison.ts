import { formatCpu } from './cpu.ts';
import type { ReadKey } from './reads.ts';
import { int, type Measure, ms, type Report, table } from './report.ts';

/** The reads of both stores, measured in turn run by run (`interleaved` in bench.ts). */
export interface Interleaved {
  key: ReadKey;
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
    formatCpu(a),
    int(b.rps),
    ms(b.p99),
    formatCpu(b),
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
    row('mixed load (one after the other)', sqlite.mixed.service, postgres.mixed.service),
  );
  rows.push([
    'bulk import, terms/s (one after the other)',
    int(sqlite.bulk.termsPerSecond),
    '',
    `${formatCpu(sqlite.bulk)} a term`,
    int(postgres.bulk.termsPerSecond),
    '',
    `${formatCpu(postgres.bulk)} a term`,
    (postgres.bulk.termsPerSecond / sqlite.bulk.termsPerSecond).toFixed(2),
  ]);
  process.stdout.write(
    `PostgreSQL beside SQLite (reads interleaved, run by run)\n${table([
      [
        'read',
        'SQLite req/s',
        'p99 ms',
        'CPU/req',
        'PostgreSQL req/s',
        'p99 ms',
        'CPU/req',
        'PG/SQLite',
      ],
      ...rows,
    ])}\n`,
  );
}
