import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

/**
 * The real server (`src/server.ts`) as a child process, for restart and crash tests. The port
 * comes from PORT=0 and is read from Fastify's "Server listening at ..." log line.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SERVER = fileURLToPath(new URL('../../src/server.ts', import.meta.url));
// Resolved here so the server can also run with another working directory.
const TSX = import.meta.resolve('tsx');

export type LogLine = Record<string, unknown> & { msg?: string };
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface RunningProcess {
  child: ChildProcess;
  logs: LogLine[];
  stderr(): string;
  exited: Promise<Exit>;
  /** Resolves with the first log line (past or future) that satisfies `match`. */
  waitForLog(match: (line: LogLine) => boolean): Promise<LogLine>;
}

export interface ServerProcess extends RunningProcess {
  url: string;
  /** Sends the signal and resolves with how the process ended. */
  stop(signal?: NodeJS.Signals): Promise<Exit>;
}

/** How the service is started: the sources through tsx unless a test says otherwise. */
export interface Launch {
  file: string;
  args: string[];
  cwd?: string;
  /** Run as this user and group (only root may ask). */
  uid?: number;
  gid?: number;
}

/** `node --import tsx src/server.ts` in `cwd`. */
export function fromSources(cwd = ROOT): Launch {
  return { file: process.execPath, args: ['--import', TSX, SERVER], cwd };
}

const running = new Set<ChildProcess>();

/** Starts the service with the given environment on top of ours. */
export function runServer(
  env: Record<string, string>,
  launch: Launch | string = fromSources(),
): RunningProcess {
  const { file, args, cwd, uid, gid } = typeof launch === 'string' ? fromSources(launch) : launch;
  const child = spawn(file, args, {
    cwd: cwd ?? ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(uid === undefined ? {} : { uid, gid }),
  });
  running.add(child);
  const logs: LogLine[] = [];
  const waiters: { match: (line: LogLine) => boolean; resolve: (line: LogLine) => void }[] = [];
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  readline.createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (text) => {
    let line: LogLine;
    try {
      line = JSON.parse(text) as LogLine;
    } catch {
      line = { msg: text, unparsed: true };
    }
    logs.push(line);
    for (const waiter of [...waiters]) {
      if (waiter.match(line)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(line);
      }
    }
  });
  const exited = once(child, 'exit').then(([code, signal]) => {
    running.delete(child);
    return { code, signal } as Exit;
  });
  return {
    child,
    logs,
    stderr: () => stderr,
    exited,
    waitForLog(match) {
      const seen = logs.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        waiters.push({ match, resolve });
        exited.then((exit) =>
          reject(
            new Error(`server exited (${JSON.stringify(exit)}) before the log line; ${stderr}`),
          ),
        );
      });
    },
  };
}

/**
 * Starts the server and resolves once it listens and its store is open (`ready`: it listens
 * first, and answers /healthz while the store opens).
 */
export async function startServer(
  env: Record<string, string>,
  launch?: Launch,
): Promise<ServerProcess> {
  const server = runServer(env, launch);
  const listening = await server.waitForLog(
    (line) => typeof line.msg === 'string' && line.msg.startsWith('Server listening at '),
  );
  await server.waitForLog((line) => line.msg === 'ready');
  const url = String(listening.msg).slice('Server listening at '.length);
  return {
    ...server,
    url,
    async stop(signal = 'SIGTERM') {
      server.child.kill(signal);
      return server.exited;
    },
  };
}

/**
 * Starts the server and, with WORKERS > 1, waits until every worker listens; a worker that
 * dies on the way fails the start (it would be replaced, again and again, for ever).
 */
export async function startService(env: Record<string, string>): Promise<ServerProcess> {
  const server = await startServer(env);
  const workers = Number(env.WORKERS ?? '1');
  if (workers > 1) {
    const died = server.waitForLog((line) => line.msg === 'worker died; replacing it');
    const ready = server.waitForLog((line) => line.msg === 'ready' && line.workers === workers);
    const first = await Promise.race([ready, died]);
    died.catch(() => undefined);
    if (first.msg !== 'ready') {
      await server.stop('SIGKILL');
      throw new Error(`a worker died while starting: ${server.stderr()}`);
    }
  }
  return server;
}

/** Kills every server a test left running (after a failed assertion, say). */
export async function killLeftovers(): Promise<void> {
  await Promise.all(
    [...running].map((child) => {
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      return exited;
    }),
  );
}

/**
 * Runs the server expecting it to refuse to start; resolves with how it exited and what it
 * wrote on stderr. Fails (and kills it) if it becomes ready instead. (It may listen first:
 * it answers /healthz while a large file is checked, and exits if the check fails.)
 */
export async function runUntilExit(
  env: Record<string, string>,
): Promise<Exit & { stderr: string }> {
  const server = runServer(env);
  const ready = server
    .waitForLog((line) => line.msg === 'ready')
    .then(
      () => 'ready' as const,
      () => 'exited' as const,
    );
  const outcome = await Promise.race([server.exited, ready]);
  if (outcome === 'ready') {
    server.child.kill('SIGKILL');
    await server.exited;
    throw new Error('the server started although it should have refused to');
  }
  const exit = await server.exited;
  // 'exit' can come before the last of stderr is read.
  if (server.child.stderr && !server.child.stderr.readableEnded) {
    await once(server.child.stderr, 'end');
  }
  return { ...exit, stderr: server.stderr() };
}
