import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const GLOSSARY_BIN = fileURLToPath(new URL('../../bin/glossary.js', import.meta.url));

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real `glossary` command in its own process. Asynchronous on purpose: the service it
 * talks to may be listening in this very process, which must stay free to answer.
 */
export function runCli(
  args: string[],
  options: { stdin?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [GLOSSARY_BIN, ...args], {
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
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    // A command that reads no standard input may exit before taking it: its exit code tells.
    child.stdin.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') reject(error);
    });
    child.stdin.end(options.stdin ?? '');
  });
}
