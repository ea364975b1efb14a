import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import type { FileFormat, FolderFormat } from '../../src/glossary/exports/format.ts';
import type { Term } from '../../src/glossary/term.ts';
import { sourceOf } from '../fixtures/hostile-terms.ts';

/** A temporary folder, removed when the test ends. */
export function tempDir(t: TestContext, prefix = 'export-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A file format's whole text, as the service or the CLI would write it. */
export async function renderFile(format: FileFormat, terms: readonly Term[]): Promise<string> {
  let text = '';
  for await (const piece of format.render(sourceOf(terms))) text += piece;
  return text;
}

/** A folder format written under `dir`, as `glossary export --out DIR` would; its paths. */
export async function renderFolder(
  format: FolderFormat,
  terms: readonly Term[],
  dir: string,
): Promise<string[]> {
  const paths: string[] = [];
  for await (const file of format.render(sourceOf(terms))) {
    const target = path.join(dir, ...file.path.split('/'));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, file.content);
    paths.push(file.path);
  }
  return paths;
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a real tool; asynchronous so the test runner stays responsive. */
export function run(
  command: string,
  args: readonly string[],
  options: { cwd?: string; input?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'ENOENT'
          ? new Error(
              `${command} is not installed: the exports are checked by the tools that read them (README, "Test it", lists the packages)`,
            )
          : error,
      );
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    // A tool that reads no standard input may exit before taking it: that is no failure of
    // the tool (its exit code and output tell), so a closed pipe is not one either.
    child.stdin.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') reject(error);
    });
    child.stdin.end(options.input ?? '');
  });
}

/** HTML text as a reader sees it: the five entities an HTML writer uses decoded. */
export function htmlText(html: string): string {
  return html
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code)))
    .replace(/&#x([0-9a-f]+);/gi, (_, code: string) =>
      String.fromCodePoint(Number.parseInt(code, 16)),
    )
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&amp;', '&');
}
