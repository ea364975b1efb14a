import type { Interleaved } from './comparison.ts';
import { formatCpu } from './cpu.ts';
import type { ReadKey } from './reads.ts';
import { int, type Measure, ms, type Report, table } from './report.ts';

/**
 * The figures beside their targets: issue 33's rows first (by id against the floor, bulk
 * import, POST PostgreSQL/SQLite, one-typo `q` after an import, the mixed load, /healthz at
 * start), then the earlier issues' targets that docs/performance.md keeps. Each cell holds the
 * figure, the floor where there is one (the ratio's other side), the CPU a request (or a term)
 * cost, and whether the target is met. One table per store, then one for both, shaped as
 * issue 33's: what | target | SQLite | PostgreSQL.
 */

interface Cell {
  figure: string;
  floor?: string;
  cpu?: string;
  met?: boolean;
}

interface Row {
  what: string;
  target: string;
  sqlite?: Cell;
  postgres?: Cell;
}

type Stores = Partial<Record<'sqlite' | 'postgres', Report>>;

const rps = (m: Measure) => `${int(m.rps)} req/s`;
const read = (r: Report, key: ReadKey) => r.reads.find((x) => x.key === key);

/** A row whose cells each store's report fills alone. */
function each(
  what: string,
  target: string,
  stores: Stores,
  cell: (r: Report, store: 'sqlite' | 'postgres') => Cell | undefined,
): Row {
  return {
    what,
    target,
    ...(stores.sqlite && { sqlite: cell(stores.sqlite, 'sqlite') }),
    ...(stores.postgres && { postgres: cell(stores.postgres, 'postgres') }),
  };
}

function p99Cell(m: Measure | undefined, limitMs: number): Cell | undefined {
  if (!m) return undefined;
  return {
    figure: `p99 ${ms(m.p99)} ms (${rps(m)})`,
    cpu: formatCpu(m),
    met: m.p99 <= limitMs && m.failed === 0,
  };
}

function issue33(stores: Stores): Row[] {
  const byIdFloor = { sqlite: 0.75, postgres: 0.65 };
  const bulkFloor = { sqlite: 60_000, postgres: 30_000 };
  const { sqlite, postgres } = stores;
  const post: Row = { what: '`POST /terms`, 32 connections, PostgreSQL/SQLite', target: '≥ 0.5' };
  if (sqlite)
    post.sqlite = { figure: `${int(sqlite.create.rps)}/s`, cpu: formatCpu(sqlite.create) };
  if (postgres) {
    const ratio = sqlite ? postgres.create.rps / sqlite.create.rps : undefined;
    post.postgres = {
      figure:
        ratio === undefined
          ? `${int(postgres.create.rps)}/s`
          : `${ratio.toFixed(2)} (${int(postgres.create.rps)}/s)`,
      ...(sqlite && { floor: `SQLite ${int(sqlite.create.rps)}/s` }),
      cpu: formatCpu(postgres.create),
      ...(ratio !== undefined && { met: ratio >= 0.5 }),
    };
  }
  const terms = (sqlite ?? postgres)?.options.terms ?? 0;
  return [
    each(
      '`GET /terms/{id}` against Fastify + pino + one log line',
      '≥ 0.75 SQLite, ≥ 0.65 PostgreSQL',
      stores,
      (r, store) => {
        const x = read(r, 'byId');
        if (!x) return undefined;
        const ratio = x.service.rps / x.framework.rps;
        return {
          figure: `${ratio.toFixed(2)} (${rps(x.service)})`,
          floor: `${rps(x.framework)}, ${formatCpu(x.framework)}`,
          cpu: formatCpu(x.service),
          met: ratio >= byIdFloor[store],
        };
      },
    ),
    each(
      'bulk import, terms/s',
      '≥ 60k SQLite, ≥ 30k PostgreSQL, search still exact at once',
      stores,
      (r, store) => ({
        figure: `${int(r.bulk.termsPerSecond)}/s, ${r.bulk.exactAtOnce ? 'exact at once' : 'NOT found at once'}`,
        cpu: `${formatCpu(r.bulk)} a term`,
        met: r.bulk.termsPerSecond >= bulkFloor[store] && r.bulk.exactAtOnce,
      }),
    ),
    post,
    each(
      'one-typo `q`, p99, 32 conn., first seconds after the import',
      '≤ 20 ms both',
      stores,
      (r) => {
        const cell = p99Cell(r.oneTypoAfterImport, 20);
        const { p99FirstSecond: first, p99AfterFirstSecond: after } = r.oneTypoAfterImport;
        if (!cell || first === undefined || after === undefined) return cell;
        // What sets the p99: the process's first second of `q` (cold code), or what follows.
        return {
          ...cell,
          figure: `${cell.figure}; first second ${ms(first)} ms, after it ${ms(after)} ms`,
        };
      },
    ),
    each(
      "a day's mixed load: 70% by id, 20% `q`, 10% POST, 32 conn.",
      '≥ 2,500 req/s with p99 ≤ 50 ms, both',
      stores,
      (r) => ({
        figure: `${rps(r.mixed.service)}, p99 ${ms(r.mixed.service.p99)} ms`,
        floor: `${rps(r.mixed.framework)}, ${formatCpu(r.mixed.framework)}`,
        cpu: formatCpu(r.mixed.service),
        met:
          r.mixed.service.rps >= 2500 && r.mixed.service.p99 <= 50 && r.mixed.service.failed === 0,
      }),
    ),
    each(
      `\`/healthz\` after start (${int(terms)} terms here)`,
      '≤ 1 s at 1M terms, integrity still checked',
      stores,
      (r) =>
        r.startUp && {
          figure: `${int(r.startUp.healthzMs)} ms (\`/readyz\` ${int(r.startUp.readyzMs)} ms)`,
          ...(r.startUp.empty && { floor: `empty store ${int(r.startUp.empty.healthzMs)} ms` }),
          cpu: `${int(r.startUp.healthzCpuMs)} ms CPU to /healthz${r.startUp.empty ? ` (empty ${int(r.startUp.empty.healthzCpuMs)} ms)` : ''}`,
          met: r.startUp.healthzMs <= 1000,
        },
    ),
  ];
}

function earlier(stores: Stores, reads?: Interleaved[]): Row[] {
  const rows: Row[] = [];
  const byId = reads?.find((x) => x.key === 'byId');
  if (byId) {
    const ratio = byId.postgres.rps / byId.sqlite.rps;
    rows.push({
      what: '`GET /terms/{id}`, interleaved',
      target: 'PostgreSQL ≥ 0.7 of SQLite',
      sqlite: { figure: rps(byId.sqlite), cpu: formatCpu(byId.sqlite) },
      postgres: {
        figure: `${ratio.toFixed(2)} (${rps(byId.postgres)})`,
        cpu: formatCpu(byId.postgres),
        met: ratio >= 0.7,
      },
    });
  }
  rows.push(
    each('`search=` selective, p99', '≤ 20 ms', stores, (r) =>
      p99Cell(read(r, 'selective')?.service, 20),
    ),
    each('`q` one typo, p99, at rest', '≤ 20 ms', stores, (r) =>
      p99Cell(read(r, 'oneTypo')?.service, 20),
    ),
    each('`q=WORD&limit=20` broad, p99', '≤ 50 ms', stores, (r) =>
      p99Cell(read(r, 'broadQ')?.service, 50),
    ),
  );
  if (reads?.length) {
    const ratios = reads.map((x) => x.postgres.rps / x.sqlite.rps);
    const low = Math.min(...ratios);
    rows.push({
      what: 'every read, interleaved',
      target: 'PostgreSQL within 2× of SQLite',
      postgres: { figure: `${low.toFixed(2)}-${Math.max(...ratios).toFixed(2)}`, met: low >= 0.5 },
    });
  }
  rows.push(
    each('RSS at rest after the load', '< 150 MB at 1M terms', stores, (r) => ({
      figure: `${r.rssAtRestMb} MB (at ${r.rssAtRestSeconds} s; ${r.rssAtRestFileMb} MB of it mapped files)`,
      met: r.rssAtRestMb < 150,
    })),
    each('full `GET /terms`: first byte', '≤ 100 ms at 1M terms', stores, (r) => ({
      figure: `${ms(r.fullList.ttfbMs)} ms (total ${ms(r.fullList.totalMs)} ms)`,
      met: r.fullList.ttfbMs <= 100,
    })),
  );
  return rows;
}

const verdict = (c: Cell) => (c.met === undefined ? '' : c.met ? 'met' : 'missed');

function summaryCell(c: Cell | undefined): string {
  if (!c) return '';
  const parts = [c.figure, c.floor && `floor ${c.floor}`, c.cpu].filter(Boolean).join('; ');
  return c.met === undefined ? parts : `${parts}: ${verdict(c)}`;
}

export function printTargets(reports: Report[], reads?: Interleaved[]): void {
  const stores: Stores = Object.fromEntries(reports.map((r) => [r.store, r]));
  const rows = [...issue33(stores), ...earlier(stores, reads)];
  const first = reports[0];
  if (!first) return;
  const o = first.options;
  const runs = `${o.runs} run${o.runs === 1 ? '' : 's'} of ${o.duration} s (medians)`;
  const heading = (r: Report) =>
    `${int(o.terms)} terms, ${runs}, load average ${r.machine.loadAverage.join(' ')} at the start of ${r.store}`;
  for (const r of reports) {
    process.stdout.write(
      `Targets, ${r.store}: ${heading(r)}. CPU per request: service (+ PostgreSQL backends); floor: Fastify+log answering the same bytes\n`,
    );
    process.stdout.write(
      `${table([
        ['what', 'target', 'figure', 'floor', 'CPU per request', ''],
        ...rows.flatMap((row) => {
          const c = row[r.store];
          return c
            ? [[row.what, row.target, c.figure, c.floor ?? '', c.cpu ?? '', verdict(c)]]
            : [];
        }),
      ])}\n\n`,
    );
  }
  process.stdout.write(`Targets: ${reports.map(heading).join('; ')}\n`);
  process.stdout.write(
    `${table([
      ['what', 'target', 'SQLite', 'PostgreSQL'],
      ...rows.map((row) => [
        row.what,
        row.target,
        summaryCell(row.sqlite),
        summaryCell(row.postgres),
      ]),
    ])}\n`,
  );
}
