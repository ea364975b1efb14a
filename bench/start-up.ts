import type { ChildProcess } from 'node:child_process';
import { freePort, start, stop } from './processes.ts';
import { median } from './report.ts';

/**
 * How long the service takes to answer once started on a loaded store: milliseconds from
 * spawn to the first 200 of GET /healthz (liveness), then of GET /readyz (the store answers),
 * each polled every 15 ms. Started `runs` times one after the other, each stopped once ready;
 * medians reported.
 */

export interface StartUp {
  healthzMs: number;
  readyzMs: number;
  runs: { healthzMs: number; readyzMs: number }[];
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
): Promise<StartUp> {
  const each: StartUp['runs'] = [];
  for (let run = 0; run < runs; run += 1) {
    process.stderr.write(`start on the loaded store: run ${run + 1}/${runs}\n`);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const t0 = performance.now();
    const child = start(args, { ...env, PORT: String(port) }, cwd);
    try {
      const healthzMs = await firstOk(`${base}/healthz`, child, t0);
      const readyzMs = await firstOk(`${base}/readyz`, child, t0);
      each.push({ healthzMs, readyzMs });
    } finally {
      await stop(child);
    }
  }
  return {
    healthzMs: median(each.map((r) => r.healthzMs)),
    readyzMs: median(each.map((r) => r.readyzMs)),
    runs: each,
  };
}
