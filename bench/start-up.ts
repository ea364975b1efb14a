import type { ChildProcess } from 'node:child_process';
import { cpuSecondsOf } from './cpu.ts';
import { freePort, start, stop } from './processes.ts';
import { median } from './report.ts';

/**
 * How long the service takes to answer once started on a loaded store: milliseconds from
 * spawn to the first 200 of GET /healthz (liveness), then of GET /readyz (the store answers),
 * each polled every 15 ms, and the CPU the process (and its workers) had spent when /healthz
 * first answered, which a busy machine inflates less than the wall time. Started `runs` times
 * one after the other, each stopped once ready; medians reported.
 */

interface Timed {
  healthzMs: number;
  healthzCpuMs: number;
  readyzMs: number;
}

export interface StartUp extends Timed {
  runs: Timed[];
  /** The same on an empty store: what starting costs before any term counts. */
  empty?: Omit<StartUp, 'empty'>;
}

const POLL_MS = 15;
const GIVE_UP_MS = 300_000;

async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

async function firstOk(url: string, child: ChildProcess, t0: number): Promise<number> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${url}: the service exited (${child.exitCode})`);
    if (await answers(url)) return performance.now() - t0;
    if (performance.now() - t0 > GIVE_UP_MS) throw new Error(`${url}: no 200 within 300 s`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

export async function startUp(
  args: string[],
  env: Record<string, string>,
  cwd: string,
  runs: number,
  label: string,
): Promise<Omit<StartUp, 'empty'>> {
  const each: Timed[] = [];
  for (let run = 0; run < runs; run += 1) {
    process.stderr.write(`start on ${label}: run ${run + 1}/${runs}\n`);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const t0 = performance.now();
    const child = start(args, { ...env, PORT: String(port) }, cwd);
    try {
      const healthzMs = await firstOk(`${base}/healthz`, child, t0);
      const healthzCpuMs = cpuSecondsOf(child.pid as number) * 1000;
      const readyzMs = await firstOk(`${base}/readyz`, child, t0);
      each.push({ healthzMs, healthzCpuMs, readyzMs });
    } finally {
      await stop(child);
    }
  }
  return {
    healthzMs: median(each.map((r) => r.healthzMs)),
    healthzCpuMs: median(each.map((r) => r.healthzCpuMs)),
    readyzMs: median(each.map((r) => r.readyzMs)),
    runs: each,
  };
}
