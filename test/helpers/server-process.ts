import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';

/**
 * The real server process (`node --import tsx src/server.ts`), as an operator runs it, for the
 * crash and start-up suites. It listens on a free port (PORT=0); the port is read from the
 * "Server listening at" log line.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

export interface ServerProcess {
  child: ChildProcess;
  baseUrl: string;
  exited: Promise<Exit>;
  /** SIGKILL: no shutdown hook runs, exactly like a crash or an OOM kill. */
  kill(): Promise<Exit>;
  /** SIGTERM: the graceful shutdown. */
  stop(): Promise<Exit>;
}

function spawnServer(env: Record<string, string>): { child: ChildProcess; exited: Promise<Exit> } {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<Exit>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, stderr }));
  });
  return { child, exited };
}

/** Starts the server and resolves once it listens; rejects with its stderr if it exits first. */
export async function startServer(env: Record<string, string>): Promise<ServerProcess> {
  const { child, exited } = spawnServer(env);
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const baseUrl = await new Promise<string>((resolve, reject) => {
    lines.on('line', (line) => {
      const match = /"msg":"Server listening at (http:\/\/[^"]+)"/.exec(line);
      if (match?.[1]) resolve(match[1]);
    });
    exited.then((exit) =>
      reject(
        new Error(`server exited before listening (${exit.code ?? exit.signal}): ${exit.stderr}`),
      ),
    );
  });
  // Keep draining the request log so the child never blocks on a full pipe.
  return {
    child,
    baseUrl,
    exited,
    kill() {
      child.kill('SIGKILL');
      return exited;
    },
    stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Runs the server expecting it to refuse to start; resolves with how it exited. */
export async function runUntilExit(env: Record<string, string>): Promise<Exit> {
  const { child, exited } = spawnServer(env);
  child.stdout?.resume();
  const listening = new Promise<void>((resolve) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString('utf8').includes('Server listening at')) resolve();
    });
  });
  const outcome = await Promise.race([exited, listening.then(() => 'listening' as const)]);
  if (outcome === 'listening') {
    child.kill('SIGKILL');
    await exited;
    throw new Error('the server started although it should have refused to');
  }
  return outcome;
}
