import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { cpuMeter } from '../bench/cpu.ts';

// A child that spends `ms` of its own CPU time, says so, and waits to be killed.
const BURN = `
  const until = Number(process.argv[1]) * 1000;
  while (process.cpuUsage().user < until) Math.sqrt(Math.random());
  process.stdout.write('burnt\\n');
  setInterval(() => {}, 1000);
`;

test('the CPU meter counts a process that started after its first reading, all of its time', async (t) => {
  const pids: number[] = [];
  const meter = cpuMeter(process.pid, async () => pids);
  const before = await meter.read();
  // A pooled connection's backend opened during a run: unlisted at the first reading.
  const child = spawn(process.execPath, ['-e', BURN, '300'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  t.after(() => child.kill());
  await once(child.stdout, 'data');
  pids.push(child.pid as number);
  const cost = await meter.since(before, 1);
  // Clock ticks are 10 ms: 300 ms burnt reads as at least 280 000 µs.
  assert.ok((cost.dbUs ?? 0) >= 280_000, `counted ${cost.dbUs} µs of the child's 300 000`);
});
