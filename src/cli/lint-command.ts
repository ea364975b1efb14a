import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { docsFiles } from '../lint/docs-files.ts';
import { lintFiles } from '../lint/lint-files.ts';
import type { GlossaryTerm } from '../lint/name-matcher.ts';
import { type ReportFormat, report } from '../lint/report-formats.ts';
import { CliError } from './cli-error.ts';
import type { ServiceClient } from './service-client.ts';

/**
 * `glossary lint [PATH...]`: the names to avoid in the docs' prose, against the glossary of a
 * service or of a JSON export. Exit status 0 when nothing is found (or `--fix` fixed it all),
 * 1 when something is, 2 for a usage or I/O error (what could be checked is still reported).
 */
export interface LintCommandOptions {
  paths: string[];
  glossary?: string | undefined;
  format: ReportFormat;
  fix: boolean;
  ignore: string[];
  version: string;
}

const FOUND = 1;
const IO_ERROR = 2;

export async function lintCommand(
  options: LintCommandOptions,
  service: () => ServiceClient,
): Promise<number> {
  const terms = options.glossary ? readGlossary(options.glossary) : await fromService(service());
  const cwd = process.cwd();
  const { files, errors: unreadable } = docsFiles(options.paths, options.ignore, cwd);
  if (!terms.some((term) => (term.avoid?.length ?? 0) > 0)) {
    note('the glossary has no names to avoid, so there is nothing to find');
  }
  const result = await lintFiles(files, terms, {
    cwd,
    fix: options.fix,
    worker: workerScript(),
  });
  process.stdout.write(
    report(options.format, result.findings, {
      version: options.version,
      root: pathToFileURL(`${cwd}/`).href,
    }),
  );
  const errors = [...unreadable, ...result.errors];
  for (const error of errors) note(error);
  const filesWith = new Set(result.findings.map((finding) => finding.file)).size;
  if (options.fix) {
    note(`fixed ${count(result.fixes, 'finding')} in ${count(result.fixedFiles, 'file')}`);
  }
  note(
    result.findings.length === 0
      ? `no findings in ${count(files.length, 'file')}`
      : `${count(result.findings.length, 'finding')} in ${filesWith} of ${count(files.length, 'file')}`,
  );
  if (errors.length > 0) return IO_ERROR;
  return result.findings.length > 0 ? FOUND : 0;
}

function note(text: string): void {
  process.stderr.write(`glossary: ${text}\n`);
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/**
 * The bundled worker sits beside the bundled command (dist/cli/); run from the sources (through
 * tsx), the worker is the source file and needs tsx too.
 */
function workerScript(): { url: URL; execArgv?: string[] } {
  if (import.meta.url.endsWith('.ts')) {
    return {
      url: new URL('../lint/lint-worker.ts', import.meta.url),
      execArgv: ['--import', 'tsx'],
    };
  }
  return { url: new URL('./lint-worker.js', import.meta.url) };
}

/** Every term of the service; a service that cannot be read is an I/O error (exit status 2). */
async function fromService(client: ServiceClient): Promise<GlossaryTerm[]> {
  const terms: GlossaryTerm[] = [];
  try {
    for await (const batch of client.streamTerms()) for (const term of batch) terms.push(term);
  } catch (error) {
    if (error instanceof CliError) {
      throw new CliError(
        `${error.message}; or lint against a JSON export: --glossary FILE`,
        IO_ERROR,
      );
    }
    throw error;
  }
  return terms;
}

/** A JSON export (`glossary export`, GET /terms, GET /exports/json): an array of terms. */
export function readGlossary(file: string): GlossaryTerm[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(
      `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? error}`,
      IO_ERROR,
    );
  }
  let items: unknown;
  try {
    items = JSON.parse(text);
  } catch (error) {
    throw new CliError(`${file} is not JSON: ${(error as Error).message}`, IO_ERROR);
  }
  if (!Array.isArray(items)) {
    throw new CliError(
      `${file} is not a glossary export: expected a JSON array of terms`,
      IO_ERROR,
    );
  }
  return items.map((item, index) => {
    const fault = termFault(item);
    if (fault) throw new CliError(`${file}: item ${index}: ${fault}`, IO_ERROR);
    return item as GlossaryTerm;
  });
}

function termFault(item: unknown): string | undefined {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return 'not a term';
  const term = item as Record<string, unknown>;
  if (!Number.isSafeInteger(term.id)) return 'its id is not a whole number';
  if (typeof term.term !== 'string') return 'its term is not text';
  for (const list of ['aliases', 'avoid'] as const) {
    const names = term[list];
    if (names === undefined || names === null) continue;
    if (!Array.isArray(names) || names.some((name) => typeof name !== 'string')) {
      return `its ${list} is not a list of names`;
    }
  }
  return undefined;
}
