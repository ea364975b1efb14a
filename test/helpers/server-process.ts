import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';

/** The real server (`node --import tsx src/server.ts`) as a child process. */

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

export interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

function spawnServer(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Starts the server and resolves once its log says where it listens. */
export function startServer(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawnServer(env);
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let stderr = '';
  child.stderr?.on('data', (data) => {
    stderr += data;
  });
  return new Promise((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout as NodeJS.ReadableStream });
    lines.on('line', (line) => {
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(line);
      if (!match?.[1]) return;
      resolve({
        url: match[1],
        child,
        async stop() {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          return exited;
        },
      });
    });
    exited.then((code) =>
      reject(new Error(`server exited with ${code} before listening: ${stderr}`)),
    );
  });
}

/** Runs the server where it is expected not to start, and reports how it ended. */
export function runServerToExit(env: Record<string, string>): Promise<Exit> {
  const child = spawnServer(env);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (data) => {
    stdout += data;
    // It started after all: stop it, so the test fails on its exit instead of waiting forever.
    if (stdout.includes('Server listening at')) child.kill('SIGTERM');
  });
  child.stderr?.on('data', (data) => {
    stderr += data;
  });
  return new Promise((resolve) => {
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
