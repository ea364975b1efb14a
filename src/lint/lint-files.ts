import os from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Finding } from './file-findings.ts';
import { lintOne, type OneFile } from './lint-one.ts';
import { type GlossaryTerm, NameMatcher } from './name-matcher.ts';

/** What `glossary lint` found in all its files. */
export interface LintResult {
  /** In the files' order, then each file's order. */
  findings: Finding[];
  /** Findings `--fix` replaced, and in how many files. */
  fixes: number;
  fixedFiles: number;
  /** Files that could not be read or rewritten, one message each. */
  errors: string[];
}

export interface LintOptions {
  cwd: string;
  fix: boolean;
  /**
   * The worker script (lint-worker.ts, bundled) and the flags it needs; without it, or for a
   * few files, everything runs on this thread.
   */
  worker?: { url: URL; execArgv?: string[] } | undefined;
}

/** Files per message to a worker: large enough to make messages rare, small enough to share out. */
const BATCH = 32;
/** Below this many files, starting threads costs more than it saves. */
const FEW_FILES = 4 * BATCH;

/** The message a worker gets: files to lint. It answers their results in the same order. */
export type WorkerRequest = { files: string[] };
export type WorkerReply = { results: OneFile[] };
export interface WorkerData {
  terms: GlossaryTerm[];
  cwd: string;
  fix: boolean;
}

/**
 * Lints `files` against `terms`: on worker threads, one per core, each building its own matcher
 * and taking batches of files as it finishes the last (so a few large files do not leave a core
 * idle); on this thread when there are few files.
 */
export async function lintFiles(
  files: readonly string[],
  terms: GlossaryTerm[],
  options: LintOptions,
): Promise<LintResult> {
  const threads = Math.min(os.availableParallelism(), Math.ceil(files.length / BATCH));
  const results: OneFile[] = new Array(files.length);
  if (!options.worker || files.length < FEW_FILES || threads < 2) {
    const matcher = new NameMatcher(terms);
    for (let i = 0; i < files.length; i++) {
      results[i] = await lintOne(files[i] as string, options.cwd, matcher, options.fix);
    }
  } else {
    await onWorkers(files, results, threads, options.worker, {
      terms,
      cwd: options.cwd,
      fix: options.fix,
    });
  }
  const summary: LintResult = { findings: [], fixes: 0, fixedFiles: 0, errors: [] };
  for (const result of results) {
    for (const finding of result.findings) summary.findings.push(finding);
    if (result.fixes > 0) {
      summary.fixes += result.fixes;
      summary.fixedFiles++;
    }
    if (result.error) summary.errors.push(result.error);
  }
  return summary;
}

async function onWorkers(
  files: readonly string[],
  results: OneFile[],
  threads: number,
  script: { url: URL; execArgv?: string[] },
  workerData: WorkerData,
): Promise<void> {
  let next = 0;
  const runOne = () =>
    new Promise<void>((resolve, reject) => {
      const worker = new Worker(script.url, { workerData, execArgv: script.execArgv ?? [] });
      let from = 0;
      let finished = false;
      const send = () => {
        if (next >= files.length) {
          finished = true;
          void worker.terminate();
          resolve();
          return;
        }
        from = next;
        next = Math.min(files.length, next + BATCH);
        worker.postMessage({ files: files.slice(from, next) } satisfies WorkerRequest);
      };
      worker.on('message', (reply: WorkerReply) => {
        reply.results.forEach((result, i) => {
          results[from + i] = result;
        });
        send();
      });
      worker.once('error', reject);
      worker.once('exit', (code) => {
        if (!finished) reject(new Error(`a lint thread stopped (exit code ${code})`));
      });
      worker.once('online', send);
    });
  await Promise.all(Array.from({ length: threads }, runOne));
}
