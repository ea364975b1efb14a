import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type Corpus, type Planted, writeLintCorpus } from './lint-corpus.ts';
import { printLintReport, writeLintResult } from './lint-report.ts';
import { median } from './report.ts';
import { type TimedRun, timedNode } from './timed-run.ts';

/**
 * `glossary lint` measured (issue 30's targets: 10,000 files, about 50 MB, against 10,000 terms
 * with three names to avoid each in at most 10 s on two cores, and at least 10× faster than
 * textlint with textlint-rule-terminology on the same files and terms). Called by bench.ts
 * (`npm run bench`), or alone:
 *
 *   npm run build && node --import tsx bench/lint-bench.ts [--files N --terms N --runs N --slice N]
 *
 * textlint builds a regular expression per name to avoid for every text node of every file, so
 * on 30,000 names it takes seconds a file: it is compared on a slice, the first Markdown files
 * that have names planted in their prose (so the two counts say something; textlint's time a
 * file hardly depends on them), at least 20 and as many as a first timing says it lints in about 60 s, unless
 * `--slice` says.
 */

const ROOT = path.resolve(import.meta.dirname, '..');
const GLOSSARY = path.join(ROOT, 'bin', 'glossary.js');
const TEXTLINT = path.join(ROOT, 'node_modules', 'textlint', 'bin', 'textlint.js');
/**
 * What one textlint run on the slice should take, about; and the fewest files the slice has.
 * Each tool pays a fixed cost to start (textlint compiles a regular expression per name, about
 * 4 s; glossary lint builds its trie, about 1 s with Node's start): on two files the ratio
 * measures those, on twenty it measures linting.
 */
const TEXTLINT_SECONDS = 60;
const SMALLEST_SLICE = 20;

export interface LintBenchOptions {
  files: number;
  terms: number;
  runs: number;
  /** Markdown files textlint and our lint are compared on; undefined: sized from a timing. */
  slice?: number | undefined;
}

/** What a linter found, set against what the corpus planted. */
export interface Tally {
  findings: number;
  /** Findings that are planted names to avoid. */
  planted: number;
  /** Findings in places the corpus never planted (code, URLs, front matter, …). */
  extra: number;
  /** Planted names not found: all of them, then those that were plurals or broken over lines. */
  missed: number;
  missedPlurals: number;
  missedAcrossLines: number;
}

export interface Timing {
  wallSeconds: number;
  cpuSeconds: number;
  maxRssMb?: number | undefined;
}

export interface LintBenchReport {
  date: string;
  machine: { cpus: number; cpuModel: string; node: string; loadAverage: number[] };
  options: LintBenchOptions;
  corpus: {
    files: number;
    megabytes: number;
    terms: number;
    namesToAvoid: number;
    planted: number;
    generateSeconds: number;
  };
  /** Medians of `runs`. */
  ours: Timing & { tally: Tally };
  slice: {
    files: number;
    megabytes: number;
    planted: number;
    ours: Timing & { tally: Tally };
    textlint: Timing & { tally: Tally };
    /** textlint's wall time over ours, and its CPU over ours. */
    wallRatio: number;
    cpuRatio: number;
  };
}

function medianTiming(runs: TimedRun[]): Timing {
  const rss = runs.flatMap((r) => (r.maxRssMb === undefined ? [] : [r.maxRssMb]));
  return {
    wallSeconds: median(runs.map((r) => r.wallSeconds)),
    cpuSeconds: median(runs.map((r) => r.cpuSeconds)),
    maxRssMb: rss.length > 0 ? median(rss) : undefined,
  };
}

const key = (file: string, found: string) =>
  `${file}\u0000${found.replace(/\s+/g, ' ').toLowerCase()}`;

/** Sets findings (file and text found) against the names planted in `files`. */
export function tally(
  found: readonly { file: string; found: string }[],
  planted: ReadonlyMap<string, Planted[]>,
  files: readonly string[],
): Tally {
  const waiting = new Map<string, Planted[]>();
  for (const file of files) {
    for (const p of planted.get(file) ?? []) {
      const k = key(file, p.found);
      waiting.set(k, [...(waiting.get(k) ?? []), p]);
    }
  }
  let matched = 0;
  for (const finding of found) {
    const left = waiting.get(key(finding.file, finding.found));
    if (left && left.length > 0) {
      left.pop();
      matched++;
    }
  }
  const missed = [...waiting.values()].flat();
  return {
    findings: found.length,
    planted: matched,
    extra: found.length - matched,
    missed: missed.length,
    missedPlurals: missed.filter((p) => p.plural).length,
    missedAcrossLines: missed.filter((p) => p.acrossLines).length,
  };
}

/** `glossary lint --format json` on `paths`, run in the corpus folder. */
async function ours(dir: string, corpus: Corpus, paths: string[]) {
  const run = await timedNode(
    [GLOSSARY, 'lint', '--glossary', corpus.glossaryFile, '--format', 'json', ...paths],
    dir,
  );
  if (run.code !== 0 && run.code !== 1) {
    throw new Error(`glossary lint exited with ${run.code}: ${run.stderr.trim()}`);
  }
  const findings = JSON.parse(run.stdout) as { file: string; found: string }[];
  return { run, findings };
}

/**
 * textlint-rule-terminology given the same names: one [pattern, replacement] pair per name to
 * avoid, its regular-expression characters escaped, and none of the rule's own terms.
 */
function writeTextlintConfig(dir: string, corpus: Corpus): string {
  const escaped = (name: string) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const terms = corpus.terms.flatMap((t) => t.avoid.map((name) => [escaped(name), t.term]));
  const file = path.join(dir, '.textlintrc.json');
  fs.writeFileSync(
    file,
    JSON.stringify({ rules: { terminology: { defaultTerms: false, terms } } }, null, 1),
  );
  return file;
}

async function textlint(dir: string, config: string, paths: string[]) {
  const run = await timedNode([TEXTLINT, '--config', config, '--format', 'json', ...paths], dir);
  if (run.code !== 0 && run.code !== 1) {
    throw new Error(`textlint exited with ${run.code}: ${run.stderr.trim()}`);
  }
  const results = JSON.parse(run.stdout) as {
    filePath: string;
    messages: { ruleId: string; message: string }[];
  }[];
  const findings = results.flatMap((result) =>
    result.messages
      .filter((m) => m.ruleId === 'terminology')
      .map((m) => ({
        file: path.relative(dir, result.filePath).split(path.sep).join('/'),
        // "Incorrect term: “web hook”, use “webhook” instead"
        found: /“(.*?)”/.exec(m.message)?.[1] ?? m.message,
      })),
  );
  return { run, findings };
}

export async function lintBench(
  o: LintBenchOptions,
  log: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<LintBenchReport> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-lint-bench-'));
  try {
    log(`lint: writing ${o.files} files against ${o.terms} terms ...`);
    const t0 = performance.now();
    const corpus = writeLintCorpus(dir, { files: o.files, terms: o.terms });
    const generateSeconds = (performance.now() - t0) / 1000;
    const plantedIn = (files: readonly string[]) =>
      files.reduce((sum, file) => sum + (corpus.planted.get(file)?.length ?? 0), 0);

    const whole: TimedRun[] = [];
    let wholeTally: Tally | undefined;
    for (let run = 0; run < o.runs; run++) {
      log(`lint: glossary lint on ${o.files} files: run ${run + 1}/${o.runs}`);
      const result = await ours(dir, corpus, ['docs']);
      whole.push(result.run);
      wholeTally ??= tally(result.findings, corpus.planted, corpus.files);
    }

    const markdown = corpus.files.filter(
      (file) => file.endsWith('.md') && corpus.planted.has(file),
    );
    const config = writeTextlintConfig(dir, corpus);
    let sliceSize = o.slice;
    if (sliceSize === undefined) {
      const probe = markdown.slice(0, 2);
      log(`lint: timing textlint on ${probe.length} files to size the slice ...`);
      const perFile = (await textlint(dir, config, probe)).run.wallSeconds / probe.length;
      sliceSize = Math.max(SMALLEST_SLICE, Math.min(200, Math.floor(TEXTLINT_SECONDS / perFile)));
    }
    const slice = markdown.slice(0, sliceSize);
    const sliceBytes = slice.reduce((sum, file) => sum + fs.statSync(path.join(dir, file)).size, 0);
    const oursSlice: TimedRun[] = [];
    const textlintSlice: TimedRun[] = [];
    let oursSliceTally: Tally | undefined;
    let textlintTally: Tally | undefined;
    for (let run = 0; run < o.runs; run++) {
      log(
        `lint: ${slice.length} Markdown files, glossary lint and textlint: run ${run + 1}/${o.runs}`,
      );
      const a = await ours(dir, corpus, slice);
      oursSlice.push(a.run);
      oursSliceTally ??= tally(a.findings, corpus.planted, slice);
      const b = await textlint(dir, config, slice);
      textlintSlice.push(b.run);
      textlintTally ??= tally(b.findings, corpus.planted, slice);
    }
    const oursSliceTiming = medianTiming(oursSlice);
    const textlintTiming = medianTiming(textlintSlice);
    return {
      date: new Date().toISOString(),
      machine: {
        cpus: os.availableParallelism(),
        cpuModel: os.cpus()[0]?.model ?? 'unknown',
        node: process.version,
        loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
      },
      options: { ...o, slice: sliceSize },
      corpus: {
        files: corpus.files.length,
        megabytes: corpus.bytes / 1e6,
        terms: corpus.terms.length,
        namesToAvoid: corpus.terms.reduce((sum, t) => sum + t.avoid.length, 0),
        planted: plantedIn(corpus.files),
        generateSeconds,
      },
      ours: { ...medianTiming(whole), tally: wholeTally as Tally },
      slice: {
        files: slice.length,
        megabytes: sliceBytes / 1e6,
        planted: plantedIn(slice),
        ours: { ...oursSliceTiming, tally: oursSliceTally as Tally },
        textlint: { ...textlintTiming, tally: textlintTally as Tally },
        wallRatio: textlintTiming.wallSeconds / oursSliceTiming.wallSeconds,
        cpuRatio: textlintTiming.cpuSeconds / oursSliceTiming.cpuSeconds,
      },
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const HELP = `usage: node --import tsx bench/lint-bench.ts [options]   (after npm run build)
  --files N   docs files to write and lint (default 10000, about 5 KB each)
  --terms N   glossary terms, three names to avoid each (default 10000)
  --runs N    runs per figure; medians are reported (default 3)
  --slice N   Markdown files (with planted names) textlint is compared on (default: as
              many as it lints in about ${TEXTLINT_SECONDS} s, at most 200)`;

async function main() {
  const { values } = parseArgs({
    options: {
      files: { type: 'string', default: '10000' },
      terms: { type: 'string', default: '10000' },
      runs: { type: 'string', default: '3' },
      slice: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return;
  }
  const whole = (name: 'files' | 'terms' | 'runs' | 'slice') => {
    const raw = values[name];
    if (raw === undefined) return undefined;
    if (!/^\d+$/.test(raw) || Number(raw) < 1) {
      process.stderr.write(`lint-bench: --${name} must be a whole number >= 1\n${HELP}\n`);
      process.exit(2);
    }
    return Number(raw);
  };
  const report = await lintBench({
    files: whole('files') as number,
    terms: whole('terms') as number,
    runs: whole('runs') as number,
    slice: whole('slice'),
  });
  printLintReport(report);
  process.stdout.write(`\nresults: ${path.relative(ROOT, writeLintResult(report))}\n`);
}

if (import.meta.filename === process.argv[1]) {
  main().catch((error) => {
    process.stderr.write(`lint-bench: ${(error as Error).stack ?? error}\n`);
    process.exit(1);
  });
}
