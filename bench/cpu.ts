import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { processTree } from './processes.ts';

/**
 * CPU a run cost, from `/proc/PID/stat` (user + system time, in clock ticks) before and after
 * it: of a process and its children (the service's workers with WORKERS > 1), and on
 * PostgreSQL of the server's backends serving the bench's database, which are local processes.
 * On two cores shared with the load generator, requests/s drifts with the hour; the CPU a
 * request costs drifts far less, so every throughput is printed beside it.
 */

const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User plus system ticks of one process (all its threads), or undefined once it is gone. */
function ticks(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name, which is in brackets and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
}

type Ticks = Map<number, number>;

function ticksOf(pids: number[]): Ticks {
  const map: Ticks = new Map();
  for (const pid of pids) {
    const t = ticks(pid);
    if (t !== undefined) map.set(pid, t);
  }
  return map;
}

/** CPU seconds a process and its children have spent since they started. */
export function cpuSecondsOf(pid: number): number {
  return secondsBetween(new Map(), ticksOf(processTree(pid)));
}

/**
 * Seconds of CPU spent between two readings by the processes of the second: a process the
 * first did not list started in between (a pooled connection's backend opened during the run,
 * a worker), so all its time counts. Counting only the processes in both left out the
 * backends the pool opened during the first run after a start: a one-typo `q` run in which it
 * opened 7 of its 10 counted 71 of their 245 ticks. A process that ended in between is not
 * counted (its time can no longer be read).
 */
function secondsBetween(before: Ticks, after: Ticks): number {
  let sum = 0;
  for (const [pid, t] of after) sum += t - (before.get(pid) ?? 0);
  return sum / TICKS_PER_SECOND;
}

export interface CpuReading {
  service: Ticks;
  db?: Ticks;
}

/** Microseconds of CPU per unit of work (request, term): the service's and the database's. */
export interface CpuCost {
  serviceUs: number;
  dbUs?: number;
}

export interface CpuMeter {
  read(): Promise<CpuReading>;
  /** The CPU spent since `before`, divided by `units` (requests served, terms imported). */
  since(before: CpuReading, units: number): Promise<CpuCost>;
}

/**
 * A meter of process `pid` and its children, and, given `dbPids` (the PostgreSQL backends of
 * the bench's database, asked of pg_stat_activity at each reading), of those too.
 */
export function cpuMeter(pid: number, dbPids?: () => Promise<number[]>): CpuMeter {
  const read = async (): Promise<CpuReading> => {
    const db = dbPids ? ticksOf(await dbPids()) : undefined;
    return { service: ticksOf(processTree(pid)), ...(db && { db }) };
  };
  return {
    read,
    async since(before, units) {
      const after = await read();
      const per = (seconds: number) => (seconds * 1e6) / Math.max(1, units);
      const serviceUs = per(secondsBetween(before.service, after.service));
      if (!before.db || !after.db) return { serviceUs };
      return { serviceUs, dbUs: per(secondsBetween(before.db, after.db)) };
    },
  };
}

/** `120 µs`, or `120 + 45 µs` with the database's share. */
export function formatCpu(cost: { cpuUs?: number; dbCpuUs?: number } | undefined): string {
  if (cost?.cpuUs === undefined) return '';
  const us = (n: number) => Math.round(n).toLocaleString('en-US');
  return cost.dbCpuUs === undefined
    ? `${us(cost.cpuUs)} µs`
    : `${us(cost.cpuUs)} + ${us(cost.dbCpuUs)} µs`;
}
