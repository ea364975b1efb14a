/**
 * `links_to` at scale: loads N synthetic terms (bench/terms.ts; every tenth also links to term
 * 1, so term 1 has N/10 linking terms and a typical term two) into a fresh store of each kind
 * and times the reads GET /terms?links_to makes: a page and its count, alone and with other
 * filters. Medians of `--runs` reads, each after the first (plans and counts are kept per
 * revision, so every read but the first of a kind is a kept one: the first is reported too).
 *
 *   node --import tsx bench/links-bench.ts --terms 1000000 [--store sqlite|postgres|both]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import type { ListOptions, TermFilter } from '../src/glossary/filters.ts';
import type { Term } from '../src/glossary/term.ts';
import type { TermStore } from '../src/glossary/term-store.ts';
import { openStore } from '../src/store/open-store.ts';
import { term } from './terms.ts';

const { values: args } = parseArgs({
  options: {
    terms: { type: 'string', default: '1000000' },
    store: { type: 'string', default: 'both' },
    runs: { type: 'string', default: '9' },
    postgres: {
      type: 'string',
      default: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    },
  },
});
const TERMS = Number(args.terms);
const RUNS = Number(args.runs);

function linkedTerm(i: number): Term {
  const t = term(i) as Term;
  return i % 10 === 0 && i > 1 ? { ...t, see_also: [...t.see_also, 1] } : t;
}

async function load(store: TermStore): Promise<number> {
  const started = performance.now();
  for (let from = 0; from < TERMS; from += 10_000) {
    const batch = Array.from({ length: Math.min(10_000, TERMS - from) }, (_, i) =>
      linkedTerm(from + i),
    );
    await store.importMany(batch, { by: null });
  }
  return (performance.now() - started) / 1000;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

async function time(work: () => Promise<unknown>): Promise<{ first: number; median: number }> {
  const times: number[] = [];
  for (let i = 0; i < RUNS + 1; i++) {
    const started = performance.now();
    await work();
    times.push(performance.now() - started);
  }
  return { first: times[0] ?? 0, median: median(times.slice(1)) };
}

async function page(store: TermStore, filter: TermFilter, options: ListOptions) {
  const terms: Term[] = [];
  for await (const chunk of store.list(filter, options)) terms.push(...chunk);
  return terms;
}

async function measure(name: string, store: TermStore): Promise<void> {
  console.log(`${name}: loading ${TERMS} terms...`);
  console.log(`${name}: loaded in ${(await load(store)).toFixed(0)} s`);
  const few = Math.floor(TERMS / 2);
  const cases: [string, TermFilter, ListOptions][] = [
    [`links_to=${few} (2 terms)`, { linksTo: few }, { limit: 20 }],
    [`links_to=1 (${TERMS / 10} terms)`, { linksTo: 1 }, { limit: 20 }],
    ['links_to=1 offset=50000', { linksTo: 1 }, { limit: 20, offset: 50_000 }],
    ['links_to=1 sort=term', { linksTo: 1 }, { limit: 20, sort: 'term' }],
    ['links_to=1 category=devops', { linksTo: 1, category: 'devops' }, { limit: 20 }],
    [`links_to=${few} sort=term`, { linksTo: few }, { limit: 20, sort: 'term' }],
    ['links_to=999999999 (none)', { linksTo: 999_999_999 }, { limit: 20 }],
  ];
  console.log(`| ${name} | page (first, median) | count (first, median) | terms |`);
  for (const [label, filter, options] of cases) {
    let found = 0;
    const read = await time(async () => {
      found = (await page(store, filter, options)).length;
    });
    let total = 0;
    const count = await time(async () => {
      total = await store.count(filter);
    });
    console.log(
      `| ${label} | ${read.first.toFixed(1)} ms, ${read.median.toFixed(2)} ms | ${count.first.toFixed(1)} ms, ${count.median.toFixed(2)} ms | ${found} of ${total} |`,
    );
  }
}

if (args.store === 'sqlite' || args.store === 'both') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'links-bench-'));
  const store = await openStore({
    database: { kind: 'sqlite', path: path.join(dir, 'glossary.db') },
    sqliteSynchronous: 'normal',
    pgPoolSize: 4,
  });
  try {
    await measure('SQLite', store);
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (args.store === 'postgres' || args.store === 'both') {
  const name = `links_bench_${process.pid}`;
  const admin = new pg.Client(args.postgres);
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(args.postgres);
  url.pathname = `/${name}`;
  const store = await openStore({
    database: { kind: 'postgres', url: url.toString() },
    sqliteSynchronous: 'normal',
    pgPoolSize: 4,
  });
  try {
    await measure('PostgreSQL', store);
  } finally {
    await store.close();
    await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
    await admin.end();
  }
}
