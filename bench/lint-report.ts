import fs from 'node:fs';
import path from 'node:path';
import type { LintBenchReport, Tally, Timing } from './lint-bench.ts';
import { int, table } from './report.ts';

/** The figures of bench/lint-bench.ts: a table on stdout and a file in bench/results/. */

const ROOT = path.resolve(import.meta.dirname, '..');

const seconds = (n: number) => n.toFixed(n >= 100 ? 0 : 2);

export function printLintReport(r: LintBenchReport): void {
  const c = r.corpus;
  const s = r.slice;
  const tallyCells = (t: Tally) => [
    int(t.findings),
    int(t.planted),
    int(t.extra),
    `${int(t.missed)} (${int(t.missedPlurals)} plural, ${int(t.missedAcrossLines)} across lines)`,
  ];
  const timing = (t: Timing) => [
    seconds(t.wallSeconds),
    seconds(t.cpuSeconds),
    t.maxRssMb === undefined ? '' : int(t.maxRssMb),
  ];
  const lines = [
    `glossary lint: ${int(c.files)} files (${c.megabytes.toFixed(1)} MB, written in ${c.generateSeconds.toFixed(1)} s), ${int(c.terms)} terms with ${int(c.namesToAvoid)} names to avoid, ${int(c.planted)} planted in prose; ${r.machine.cpus} cores (${r.machine.cpuModel}), node ${r.machine.node}, load average at the end ${r.machine.loadAverage.join(' ')}; medians of ${r.options.runs} runs`,
    '',
    table([
      [
        'run',
        'files',
        'MB',
        'wall s',
        'CPU s',
        'peak RSS MB',
        'findings',
        'planted found',
        'other findings',
        'planted missed',
      ],
      [
        'glossary lint, whole corpus (target ≤ 10 s)',
        int(c.files),
        c.megabytes.toFixed(1),
        ...timing(r.ours),
        ...tallyCells(r.ours.tally),
      ],
      [
        'glossary lint, Markdown slice',
        int(s.files),
        s.megabytes.toFixed(2),
        ...timing(s.ours),
        ...tallyCells(s.ours.tally),
      ],
      [
        'textlint + textlint-rule-terminology, same slice',
        int(s.files),
        s.megabytes.toFixed(2),
        ...timing(s.textlint),
        ...tallyCells(s.textlint.tally),
      ],
    ]),
    '',
    `textlint / glossary lint on the slice (${int(s.planted)} planted): wall ${s.wallRatio.toFixed(1)}×, CPU ${s.cpuRatio.toFixed(1)}× (target ≥ 10×); textlint at its slice rate would take ${seconds((s.textlint.wallSeconds / s.megabytes) * c.megabytes)} s for the whole corpus`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** Where the figures go, beside the service's (bench/results/, which git ignores). */
export function writeLintResult(r: LintBenchReport): string {
  const out = path.join(ROOT, 'bench', 'results');
  fs.mkdirSync(out, { recursive: true });
  const file = path.join(
    out,
    `${r.date.replaceAll(':', '-')}-lint-${r.corpus.files}-files-${r.corpus.terms}-terms.json`,
  );
  fs.writeFileSync(file, `${JSON.stringify(r, null, 2)}\n`);
  return file;
}
