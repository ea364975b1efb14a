import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sampleTerm } from '../helpers/app.ts';
import { tempDir } from '../helpers/backends.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

interface LogLine {
  msg?: string;
  pid?: number;
  workerPid?: number;
  port?: number;
  workers?: number;
  url?: string;
}

/** The real server with WORKERS=2 on a fresh SQLite file, its JSON log lines collected. */
class ClusterProcess {
  readonly lines: LogLine[] = [];
  private waiters: { when: (line: LogLine) => boolean; resolve: (line: LogLine) => void }[] = [];
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;

  constructor(env: Record<string, string>) {
    this.child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let rest = '';
    this.child.stdout?.on('data', (data: Buffer) => {
      const text = rest + data.toString('utf8');
      const parts = text.split('\n');
      rest = parts.pop() ?? '';
      for (const part of parts) this.record(JSON.parse(part) as LogLine);
    });
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
  }

  private record(line: LogLine) {
    this.lines.push(line);
    this.waiters = this.waiters.filter((waiter) => {
      if (!waiter.when(line)) return true;
      waiter.resolve(line);
      return false;
    });
  }

  /** The first log line, past or future, that satisfies `when`. */
  waitFor(when: (line: LogLine) => boolean): Promise<LogLine> {
    const seen = this.lines.find(when);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ when, resolve }));
  }
}

describe('WORKERS=2: two processes on one port and one SQLite file', () => {
  let server: ClusterProcess;
  let base: string;
  before(async () => {
    server = new ClusterProcess({
      PORT: '0',
      WORKERS: '2',
      LOG_LEVEL: 'info',
      DATABASE_URL: `sqlite:${path.join(tempDir(), 'glossary.db')}`,
    });
    const ready = await server.waitFor((line) => line.msg === 'ready' && line.workers === 2);
    base = `http://127.0.0.1:${ready.port}`;
  });
  after(async () => {
    if (server.child.exitCode === null) {
      server.child.kill('SIGKILL');
      await server.exited;
    }
  });

  test('concurrent overlapping bulk imports create each id exactly once', async () => {
    // Eight requests of 400 ids each, every id in two or three of them.
    const batches = Array.from({ length: 8 }, (_, k) =>
      Array.from({ length: 400 }, (_, i) => sampleTerm(k * 150 + i)),
    );
    const results = await Promise.all(
      batches.map(async (batch) => {
        const res = await fetch(`${base}/terms/bulk`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', connection: 'close' },
          body: JSON.stringify(batch),
        });
        assert.equal(res.status, 207);
        return (await res.json()) as { status: string; id?: number; detail?: string }[];
      }),
    );
    const createdBy = new Map<number, number>();
    results.forEach((items, k) => {
      items.forEach((item, i) => {
        const id = batches[k]?.[i]?.id as number;
        if (item.status === 'created') {
          assert.equal(createdBy.has(id), false, `id ${id} created twice`);
          createdBy.set(id, k);
        } else {
          assert.equal(item.detail, `Term with ID ${id} already exists.`);
        }
      });
    });
    const allIds = new Set(batches.flat().map((term) => term.id));
    assert.equal(createdBy.size, allIds.size);

    const listed = (await (await fetch(`${base}/terms`)).json()) as { id: number }[];
    assert.deepEqual(
      listed.map((term) => term.id).sort((a, b) => a - b),
      [...allIds].sort((a, b) => a - b),
    );
    // Both workers took part.
    const pids = new Set(
      server.lines.filter((line) => line.url === '/terms/bulk').map((line) => line.pid),
    );
    assert.equal(pids.size, 2);
  });

  test('concurrent POST /terms through both workers are all stored (writers queue, none fails)', async () => {
    const responses = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        fetch(`${base}/terms`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', connection: 'close' },
          body: JSON.stringify(sampleTerm(100_000 + i)),
        }),
      ),
    );
    assert.deepEqual(
      responses.map((res) => res.status),
      responses.map(() => 201),
    );
    for (let i = 0; i < 40; i += 1) {
      const res = await fetch(`${base}/terms/${100_000 + i}`);
      assert.equal(res.status, 200);
    }
  });

  test('a worker that dies is replaced and the service keeps answering', async () => {
    const first = await server.waitFor((line) => line.msg === 'worker listening');
    const victim = first.workerPid as number;
    process.kill(victim, 'SIGKILL');
    await server.waitFor((line) => line.msg === 'worker died; replacing it');
    await server.waitFor(
      (line) =>
        line.msg === 'worker listening' &&
        line.workerPid !== victim &&
        server.lines.indexOf(line) >
          server.lines.findIndex((l) => l.msg === 'worker died; replacing it'),
    );
    const res = await fetch(`${base}/terms/1`);
    assert.equal(res.status, 200);
  });

  test('SIGTERM to the primary stops every worker gracefully and exits 0', async () => {
    server.child.kill('SIGTERM');
    assert.equal(await server.exited, 0);
    const stopped = server.lines.filter((line) => line.msg === 'worker stopped');
    assert.equal(stopped.length, 2);
  });
});
