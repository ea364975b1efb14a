import http from 'node:http';
import autocannon from 'autocannon';
import type { CpuMeter } from './cpu.ts';
import { sampleRss } from './processes.ts';
import { type Measure, median } from './report.ts';

/** Driving a server with autocannon, and reading what it answered and what that cost. */

export interface CannonOptions {
  duration: number;
  connections: number;
}

/**
 * One autocannon run of `request` (called for every request: a path, or a whole request) at
 * `connections`, with the CPU `meter`'s processes spent per request served.
 */
export async function cannon(
  url: string,
  o: CannonOptions,
  request: () => Partial<autocannon.Request>,
  connections = o.connections,
  meter?: CpuMeter,
  /** Also the p99 of the answers in the run's first second and of those after it. */
  firstSecond = false,
): Promise<Measure> {
  const before = await meter?.read();
  let split: ReturnType<typeof splitLatencies> | undefined;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const run = autocannon(
      {
        url,
        connections,
        duration: o.duration,
        requests: [{ setupRequest: (req) => ({ ...req, ...request() }) }],
      },
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    if (firstSecond) split = splitLatencies(run);
  });
  const cost = meter && before ? await meter.since(before, result.requests.total) : undefined;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failed: result.non2xx + result.errors + result.timeouts,
    ...(cost && { cpuUs: cost.serviceUs }),
    ...(cost?.dbUs !== undefined && { dbCpuUs: cost.dbUs }),
    ...(split && halvesP99(split)),
  };
}

/**
 * Each answer's latency (ms), by whether it came in the run's first second: a process's
 * first requests of a kind run code V8 has not compiled yet and, on PostgreSQL, backends just
 * opened, so a run right after a start is slower in its first second than after it.
 */
function splitLatencies(run: autocannon.Instance) {
  const start = performance.now();
  const split = { first: [] as number[], after: [] as number[] };
  run.on('response', (_client, _status, _bytes, latencyMs) => {
    (performance.now() - start < 1000 ? split.first : split.after).push(latencyMs);
  });
  return split;
}

/** Each half's p99, when both had answers (a first second without one has none to show). */
function halvesP99(split: ReturnType<typeof splitLatencies>) {
  if (split.first.length === 0 || split.after.length === 0) return undefined;
  const p99 = (latencies: number[]) => {
    latencies.sort((a, b) => a - b);
    return latencies[Math.floor((latencies.length - 1) * 0.99)] as number;
  };
  return { p99FirstSecond: p99(split.first), p99AfterFirstSecond: p99(split.after) };
}

const medianOfDefined = (values: (number | undefined)[]) => {
  const defined = values.filter((v): v is number => v !== undefined);
  return defined.length ? median(defined) : undefined;
};

/** The median of each figure over the runs; failures summed. */
export function medianOf(measures: Measure[]): Measure {
  const cpuUs = medianOfDefined(measures.map((m) => m.cpuUs));
  const dbCpuUs = medianOfDefined(measures.map((m) => m.dbCpuUs));
  return {
    rps: median(measures.map((m) => m.rps)),
    p50: median(measures.map((m) => m.p50)),
    p99: median(measures.map((m) => m.p99)),
    failed: measures.reduce((sum, m) => sum + m.failed, 0),
    ...(cpuUs !== undefined && { cpuUs }),
    ...(dbCpuUs !== undefined && { dbCpuUs }),
  };
}

/** Average body size of a few answers: what the yardsticks must send to be comparable. */
export async function bodySize(base: string, next: () => string, samples = 20): Promise<number> {
  let bytes = 0;
  for (let i = 0; i < samples; i += 1)
    bytes += (await (await fetch(base + next())).arrayBuffer()).byteLength;
  return Math.max(2, Math.round(bytes / samples));
}

/** One GET read to its end: time to the first byte, total time, bytes, peak server RSS. */
export function fullRead(url: string, pid?: number, headers: Record<string, string> = {}) {
  return new Promise<{ ttfbMs: number; totalMs: number; bytes: number; peakRssMb?: number }>(
    (resolve, reject) => {
      const stopSampling = pid === undefined ? undefined : sampleRss(pid);
      const t0 = performance.now();
      http
        .get(url, { headers }, (res) => {
          let ttfb = 0;
          let bytes = 0;
          res.on('data', (chunk: Buffer) => {
            if (bytes === 0) ttfb = performance.now() - t0;
            bytes += chunk.length;
          });
          res.on('end', () =>
            resolve({
              ttfbMs: ttfb,
              totalMs: performance.now() - t0,
              bytes,
              ...(stopSampling && { peakRssMb: stopSampling() }),
            }),
          );
          res.on('error', reject);
        })
        .on('error', reject);
    },
  );
}
