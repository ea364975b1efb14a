import fs from 'node:fs';
import path from 'node:path';
import { type Finding, lintText } from './file-findings.ts';
import { markupOf, readerOf } from './markup/markups.ts';
import type { NameMatcher } from './name-matcher.ts';

/** What linting one file gave: its findings, whether `--fix` rewrote it, or why it could not. */
export interface OneFile {
  findings: Finding[];
  /** How many findings `--fix` replaced (they are no longer findings). */
  fixes: number;
  error?: string;
}

/**
 * Reads, lints and (with `fix`) rewrites one file; with `fix`, the findings are those left in the
 * rewritten text. `file` is as reports name it, relative to
 * `cwd`. A rewrite goes to a new file beside it, renamed over it, so a crash leaves the old text
 * or the new, never half; the file's mode is kept. A file that is not UTF-8 is linted but never
 * rewritten: writing the decoded text back would change its other bytes.
 */
export async function lintOne(
  file: string,
  cwd: string,
  matcher: NameMatcher,
  fix: boolean,
): Promise<OneFile> {
  const absolute = path.resolve(cwd, file);
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(absolute);
  } catch (error) {
    return { findings: [], fixes: 0, error: `cannot read ${file}: ${codeOf(error)}` };
  }
  const source = bytes.toString('utf8');
  const mask = await readerOf(markupOf(file) ?? 'plain');
  let result: ReturnType<typeof lintText>;
  try {
    result = lintText(file, source, mask, matcher);
  } catch (error) {
    // A reader's fault on one file is that file's error, not the end of the run.
    return { findings: [], fixes: 0, error: `cannot lint ${file}: ${(error as Error).message}` };
  }
  if (!fix || result.fixes === 0) return { findings: result.findings, fixes: 0 };
  if (source.includes('\uFFFD') && !Buffer.from(source, 'utf8').equals(bytes)) {
    return { findings: result.findings, fixes: 0, error: `cannot fix ${file}: it is not UTF-8` };
  }
  // A replacement can make a new finding (a name whose replacement holds another name to avoid,
  // two terms avoiding each other's names): the fixed text is linted again, and what is found
  // there is reported, so "fixed" never hides a finding.
  let remaining: ReturnType<typeof lintText>;
  try {
    remaining = lintText(file, result.fixed, mask, matcher);
  } catch (error) {
    return { findings: [], fixes: 0, error: `cannot lint ${file}: ${(error as Error).message}` };
  }
  // A link is followed: the file it names is rewritten, and the link stays a link.
  let target = absolute;
  try {
    target = fs.realpathSync(absolute);
  } catch {}
  const temporary = `${target}.glossary-lint-${process.pid}`;
  try {
    fs.writeFileSync(temporary, result.fixed, { mode: fs.statSync(target).mode });
    fs.renameSync(temporary, target);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    return { findings: result.findings, fixes: 0, error: `cannot fix ${file}: ${codeOf(error)}` };
  }
  return { findings: remaining.findings, fixes: result.fixes };
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? String(error);
}
