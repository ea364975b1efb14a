import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

/** Child processes of the benchmark and what /proc says about their memory. */

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

export async function waitUntilUp(url: string, child: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt += 1) {
    if (child.exitCode !== null) throw new Error(`${url}: the process exited (${child.exitCode})`);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not come up within 60 s`);
}

/**
 * Starts a child whose standard output (the service's log, one JSON line per request at
 * `info`) goes to /dev/null: the lines are made and written as in production, and no reader
 * in this process, busy driving the load, can hold the service up (a pipe left unread would
 * block its writes once full).
 */
export function start(args: string[], env: Record<string, string>, cwd: string): ChildProcess {
  return spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** A process and, with WORKERS > 1, its workers: every pid whose memory counts. */
export function processTree(pid: number): number[] {
  const pids = [pid];
  for (let i = 0; i < pids.length; i += 1) {
    try {
      const children = fs.readFileSync(`/proc/${pids[i]}/task/${pids[i]}/children`, 'utf8');
      pids.push(...children.trim().split(/\s+/).filter(Boolean).map(Number));
    } catch {
      // gone already
    }
  }
  return pids;
}

function statusKb(pid: number, field: 'VmRSS' | 'VmHWM' | 'RssFile'): number {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/**
 * Resident memory in MB: the sum over the process tree (the largest single one in `max`), and
 * of it the pages of mapped files (`file`: the code, and SQLite's database file, which the
 * store reads through a map; they are the system's file cache, shared, not the process's own).
 */
export function rssMb(pid: number): { total: number; max: number; file: number } {
  const tree = processTree(pid);
  const each = tree.map((p) => statusKb(p, 'VmRSS') / 1024);
  const file = tree.reduce((sum, p) => sum + statusKb(p, 'RssFile') / 1024, 0);
  return { total: each.reduce((a, b) => a + b, 0), max: Math.max(0, ...each), file };
}

export function peakRssMb(pid: number): number {
  return Math.max(0, ...processTree(pid).map((p) => statusKb(p, 'VmHWM') / 1024));
}

/** Samples RSS every `everyMs` until stopped; answers the highest sum seen. */
export function sampleRss(pid: number, everyMs = 20): () => number {
  let peak = rssMb(pid).total;
  const timer = setInterval(() => {
    peak = Math.max(peak, rssMb(pid).total);
  }, everyMs);
  return () => {
    clearInterval(timer);
    return Math.max(peak, rssMb(pid).total);
  };
}
