import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A command's run: its output, exit status, and what it cost. */
export interface TimedRun {
  code: number;
  stdout: string;
  stderr: string;
  wallSeconds: number;
  /** User plus system CPU of the child and everything it waited for. */
  cpuSeconds: number;
  /** Peak resident memory, when GNU time measured the run. */
  maxRssMb?: number;
}

const GNU_TIME = '/usr/bin/time';

/**
 * Runs `node ARGS` in `cwd` and measures it. GNU time reads the child's rusage (CPU and peak
 * RSS); without it, the CPU comes from this process's `cutime`/`cstime` in /proc/self/stat,
 * which count the children it has reaped: exact as long as no other child ends meanwhile (the
 * bench runs one at a time), to a clock tick.
 */
export async function timedNode(args: string[], cwd: string): Promise<TimedRun> {
  const withTime = fs.existsSync(GNU_TIME);
  const timeFile = path.join(os.tmpdir(), `glossary-bench-time-${process.pid}`);
  const command = withTime ? GNU_TIME : process.execPath;
  const argv = withTime
    ? ['-f', '%U %S %M', '-o', timeFile, process.execPath, ...args]
    : [process.execPath, ...args].slice(1);
  const before = childTicks();
  const t0 = performance.now();
  const { code, stdout, stderr } = await new Promise<{
    code: number;
    stdout: string;
    stderr: string;
  }>((resolve, reject) => {
    const child = spawn(command, argv, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.once('error', reject);
    child.once('close', (status) =>
      resolve({
        code: status ?? -1,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      }),
    );
  });
  const wallSeconds = (performance.now() - t0) / 1000;
  if (!withTime) {
    return { code, stdout, stderr, wallSeconds, cpuSeconds: (childTicks() - before) / 100 };
  }
  // With -o, GNU time writes "Command exited with non-zero status N" there, before the figures.
  const [user, system, rssKb] =
    fs.readFileSync(timeFile, 'utf8').trim().split('\n').at(-1)?.split(' ').map(Number) ?? [];
  fs.rmSync(timeFile, { force: true });
  return {
    code,
    stdout,
    stderr,
    wallSeconds,
    cpuSeconds: (user ?? 0) + (system ?? 0),
    maxRssMb: Math.round((rssKb ?? 0) / 1024),
  };
}

/** CPU ticks (1/100 s on Linux) of this process's reaped children. */
function childTicks(): number {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  // The fields after the command name, which is in brackets and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[13]) + Number(fields[14]);
}
