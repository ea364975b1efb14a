import { parseArgs } from 'node:util';

/** `npm run bench` options: the help text and what it parses them to. */

export const HELP = `usage: npm run bench -- [options]
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
  --rest S         RSS at rest is the lowest reading, taken each second from 10 s to S s
                   after the load (default 90)
  --starts N       starts of the service on the loaded store, each timed from spawn to the
                   first 200 of GET /healthz (default 3, the median is reported)
  --log-level L    LOG_LEVEL of the service (default info, the service's default: one log
                   line per request, written to /dev/null)
  --node-options S NODE_OPTIONS of the service, e.g. --max-semi-space-size=2
  --only P         service, lint or streams: one part of the bench (default service and
                   lint, the service first; streams: what idle event streams cost)
  --quick          a check that every part runs, not a measurement: the service part only,
                   --terms 20000 --runs 1 --duration 2 --rest 10 unless given
  --streams N      idle GET /changes event streams --only streams opens (default 1000)
  --lint-files N   docs files \`glossary lint\` reads (default 10000, about 5 KB each)
  --lint-terms N   glossary terms it checks them against, three names to avoid each
                   (default 10000)
  --lint-slice N   Markdown files textlint is compared on (default: as many as it lints in
                   about 30 s)

Every throughput is printed with the CPU a request cost (µs, from /proc/PID/stat before and
after the run): the service's, plus PostgreSQL's backends for the PostgreSQL store. The
one-typo q right after the import is one run, the first --duration seconds after the load,
with the p99 of its first second (the process's first q requests) and of the rest beside it;
the mixed load (70% by id, 20% q, 10% POST) runs --runs times after the reads; the service is
then stopped and started --starts times on the loaded store and on an empty one. At the end,
the targets of issue 33 beside the figures, one table per store and one for both.`;

export type Store = 'sqlite' | 'postgres';

function fail(message: string): never {
  process.stderr.write(`bench: ${message}\n${HELP}\n`);
  process.exit(2);
}

export function options() {
  const { values } = parseArgs({
    options: {
      terms: { type: 'string' },
      workers: { type: 'string' },
      duration: { type: 'string' },
      runs: { type: 'string' },
      connections: { type: 'string' },
      'search-connections': { type: 'string' },
      rest: { type: 'string' },
      starts: { type: 'string' },
      store: { type: 'string', default: 'both' },
      postgres: {
        type: 'string',
        default: process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres',
      },
      'log-level': { type: 'string', default: 'info' },
      'node-options': { type: 'string', default: '' },
      only: { type: 'string' },
      quick: { type: 'boolean', default: false },
      streams: { type: 'string' },
      'lint-files': { type: 'string' },
      'lint-terms': { type: 'string' },
      'lint-slice': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    process.exit(0);
  }
  const quick = values.quick;
  const only = values.only ?? (quick ? 'service' : 'both');
  if (!['both', 'service', 'lint', 'streams'].includes(only)) {
    fail('--only must be service, lint or streams');
  }
  const whole = (name: keyof typeof values, fallback: number, min = 1) => {
    const raw = (values[name] as string | undefined) ?? String(fallback);
    if (!/^\d+$/.test(raw) || Number(raw) < min) fail(`--${name} must be a whole number >= ${min}`);
    return Number(raw);
  };
  return {
    terms: whole('terms', quick ? 20_000 : 100_000),
    workers: whole('workers', 1),
    duration: whole('duration', quick ? 2 : 5),
    runs: whole('runs', quick ? 1 : 3),
    connections: whole('connections', 32),
    searchConnections: whole('search-connections', 32),
    restSeconds: whole('rest', quick ? 10 : 90, 0),
    starts: whole('starts', 3),
    stores: storesOf(values.store),
    postgres: values.postgres,
    logLevel: values['log-level'],
    nodeOptions: values['node-options'],
    service: only === 'both' || only === 'service',
    lint: only === 'both' || only === 'lint',
    streams: only === 'streams' ? whole('streams', 1000) : 0,
    lintFiles: whole('lint-files', 10_000),
    lintTerms: whole('lint-terms', 10_000),
    lintSlice: values['lint-slice'] === undefined ? undefined : whole('lint-slice', 1),
  };
}

export type Options = ReturnType<typeof options>;

function storesOf(raw: string): Store[] {
  if (raw === 'both') return ['sqlite', 'postgres'];
  if (raw === 'sqlite' || raw === 'postgres') return [raw];
  fail('--store must be sqlite, postgres or both');
}
