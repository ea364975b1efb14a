import assert from 'node:assert/strict';
import fs from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { openSqlite } from '../../src/store/sqlite/driver.ts';
import { CrashEditor, type EditReport } from './crash-edits.ts';
import { type ServerProcess, startServer } from './server-process.ts';

/**
 * Crash cycles against the real server process: concurrent writers (single POST /terms and
 * POST /terms/bulk) run until a random number of writes has been acknowledged, then the server
 * is SIGKILLed mid-load and started again on the same database. A ledger records every term
 * sent and every acknowledgement, and `verify` checks the database against it.
 */

export interface CrashOptions {
  env: Record<string, string>;
  cycles: number;
  seed: number;
  singleWriters?: number;
  bulkWriters?: number;
  /** Editors changing acknowledged terms (PUT, DELETE, restore); 1 by default. */
  editors?: number;
  /**
   * What happens at the random moment of each cycle. By default the server is SIGKILLed and
   * started again. With `disrupt`, the server keeps running and `disrupt` breaks its storage
   * (say, terminates its database connections) while the writers go on.
   */
  disrupt?: () => Promise<void>;
}

export interface CrashReport {
  cycles: number;
  requestsAcknowledged: number;
  /** Writes answered 503 (storage unavailable): not acknowledged, so they may or may not be stored. */
  requestsRefused: number;
  termsAcknowledged: number;
  termsFound: number;
  unacknowledgedBatchesStored: number;
  unacknowledgedBatchesAbsent: number;
  edited: EditReport;
}

interface SentTerm {
  id: number;
  term: string;
  definition: string;
  category: string;
  see_also: number[];
}

interface Batch {
  terms: SentTerm[];
  acknowledged: boolean;
}

/** A small seeded generator, so a failing run can be repeated with CRASH_SEED. */
function random(seed: number): (below: number) => number {
  let state = seed >>> 0;
  return (below) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * below);
  };
}

const CATEGORIES = ['frontend', 'backend', 'devops', 'docs-as-code'];

export async function runCrashCycles(options: CrashOptions): Promise<CrashReport> {
  const rand = random(options.seed);
  let nextId = 1;
  const newTerm = (cycle: number): SentTerm => {
    const id = nextId++;
    return {
      id,
      term: `Term ${id} Ünïcode ✓`,
      definition: `Written in cycle ${cycle}. ${'x'.repeat(rand(400))}`,
      category: CATEGORIES[rand(CATEGORIES.length)] as string,
      see_also: Array.from({ length: rand(4) }, () => rand(nextId)),
    };
  };
  const singles: Batch[] = [];
  const batches: Batch[] = [];
  let requestsAcknowledged = 0;
  let requestsRefused = 0;
  const editor = new CrashEditor(rand);

  /** Runs the writers against `server` until `stop()`; each ends early if its connection fails. */
  function writers(
    server: ServerProcess,
    cycle: () => number,
    acknowledge: (what: 'write' | 'edit') => void,
  ) {
    let stopped = false;
    const run = async (
      url: string,
      sent: () => Batch,
      expected: number,
      check: (body: unknown, batch: Batch) => void,
    ) => {
      while (!stopped) {
        const batch = sent();
        const response = await post(server, url, url === '/terms' ? batch.terms[0] : batch.terms);
        if (!response) return;
        if (response.status === 503) {
          requestsRefused++;
          continue;
        }
        assert.equal(response.status, expected, `POST ${url} answered ${response.status}`);
        check(response.body, batch);
        batch.acknowledged = true;
        for (const term of batch.terms) editor.known(term);
        acknowledge('write');
      }
    };
    const single = () =>
      run(
        '/terms',
        () => {
          const batch: Batch = { terms: [newTerm(cycle())], acknowledged: false };
          singles.push(batch);
          return batch;
        },
        201,
        (body, batch) => assert.deepEqual(body, batch.terms[0]),
      );
    const bulk = () =>
      run(
        '/terms/bulk',
        () => {
          const size = 1 + rand(200);
          const batch: Batch = {
            terms: Array.from({ length: size }, () => newTerm(cycle())),
            acknowledged: false,
          };
          batches.push(batch);
          return batch;
        },
        207,
        (body, batch) =>
          assert.deepEqual(
            (body as { status: string; id: number }[]).map((r) => [r.status, r.id]),
            batch.terms.map((t) => ['created', t.id]),
          ),
      );
    const running = Promise.all([
      ...Array.from({ length: options.singleWriters ?? 2 }, single),
      ...Array.from({ length: options.bulkWriters ?? 2 }, bulk),
      ...Array.from({ length: options.editors ?? 1 }, () =>
        editor.run(
          server,
          () => stopped,
          () => acknowledge('edit'),
        ),
      ),
    ]);
    return {
      running,
      stop() {
        stopped = true;
        return running;
      },
    };
  }

  let cycle = 0;
  let onAcknowledge = (_what: 'write' | 'edit') => {};
  const restart = !options.disrupt;
  let server = await startServer(options.env);
  let load = writers(
    server,
    () => cycle,
    (what) => onAcknowledge(what),
  );
  for (; cycle < options.cycles; cycle++) {
    const target = 1 + rand(60);
    let acknowledged = 0;
    let reached!: () => void;
    const targetReached = new Promise<void>((resolve) => {
      reached = resolve;
    });
    // Each cycle also waits for an acknowledged edit, so every crash can hit edits too.
    let edited = (options.editors ?? 1) === 0;
    onAcknowledge = (what) => {
      requestsAcknowledged++;
      if (what === 'edit') edited = true;
      if (++acknowledged >= target && edited) reached();
    };
    if (cycle > 0 && restart) {
      server = await startServer(options.env);
      load = writers(
        server,
        () => cycle,
        (what) => onAcknowledge(what),
      );
    }
    const outcome = await Promise.race([
      targetReached.then(() => 'reached' as const),
      server.exited,
      load.running,
    ]);
    if (outcome !== 'reached') {
      await server.stop('SIGKILL');
      assert.fail(
        `cycle ${cycle}: the server or every writer stopped on its own (${server.stderr()})`,
      );
    }
    if (options.disrupt) {
      await options.disrupt();
      continue;
    }
    const exit = await server.stop('SIGKILL');
    assert.equal(exit.signal, 'SIGKILL', `the server exited by itself: ${server.stderr()}`);
    await killWorkers(server);
    await load.running;
  }
  if (options.disrupt) {
    await load.stop();
    assert.equal(server.child.exitCode, null, 'the server kept running through every disruption');
    const exit = await server.stop();
    assert.equal(exit.code, 0, server.stderr());
  }

  const report = await verify(options.env, singles, batches, editor);
  return {
    ...report,
    cycles: options.cycles,
    requestsAcknowledged,
    requestsRefused,
    edited: editor.report,
  };
}

/**
 * With WORKERS > 1 the killed process was only the supervisor: its workers (every other pid in
 * its log) are SIGKILLed too, as in a crash of the whole machine, and awaited.
 */
export async function killWorkers(server: ServerProcess): Promise<void> {
  const pids = new Set<number>();
  for (const line of server.logs) {
    for (const pid of [line.pid, line.workerPid]) {
      if (typeof pid === 'number' && pid !== server.child.pid) pids.add(pid);
    }
  }
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  for (const pid of pids) {
    while (isAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Running, not merely a zombie waiting for whoever inherited it to reap it. */
function isAlive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** POSTs JSON; resolves null when the connection fails (the server was killed). */
async function post(
  server: ServerProcess,
  url: string,
  body: unknown,
): Promise<{ status: number; body: unknown } | null> {
  try {
    const response = await fetch(server.url + url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: await response.json() };
  } catch {
    return null;
  }
}

async function verify(
  env: Record<string, string>,
  singles: Batch[],
  batches: Batch[],
  editor: CrashEditor,
): Promise<
  Pick<
    CrashReport,
    | 'termsAcknowledged'
    | 'termsFound'
    | 'unacknowledgedBatchesStored'
    | 'unacknowledgedBatchesAbsent'
  >
> {
  const server = await startServer(env);
  let stored: SentTerm[];
  try {
    const response = await fetch(`${server.url}/terms`);
    assert.equal(response.status, 200);
    stored = (await response.json()) as SentTerm[];
  } finally {
    const exit = await server.stop();
    assert.equal(exit.code, 0, server.stderr());
  }

  const byId = new Map<number, SentTerm>();
  for (const term of stored) {
    assert.ok(!byId.has(term.id), `id ${term.id} is stored twice`);
    byId.set(term.id, term);
  }
  const sent = new Map<number, SentTerm>();
  for (const batch of [...singles, ...batches])
    for (const term of batch.terms) sent.set(term.id, term);
  // An acknowledged creation is in the editor's ledger: in its last acknowledged state, or in
  // the state of a change whose answer was lost. Anything else was never acknowledged.
  for (const term of stored) {
    const allowed = editor.allowed(term.id);
    if (allowed) {
      assert.ok(
        allowed.some((state) => isDeepStrictEqual(state, term)),
        `term ${term.id} is in a state never acknowledged: ${JSON.stringify(term)}`,
      );
    } else {
      assert.deepEqual(term, sent.get(term.id), `stored term ${term.id} was never sent as such`);
    }
  }
  const accountedFor = (id: number) => byId.has(id) || (editor.allowed(id) ?? []).includes(null);
  for (const id of editor.ids()) assert.ok(accountedFor(id), `acknowledged term ${id} is lost`);

  let termsAcknowledged = 0;
  let termsFound = 0;
  let unacknowledgedBatchesStored = 0;
  let unacknowledgedBatchesAbsent = 0;
  for (const batch of [...singles, ...batches]) {
    if (batch.acknowledged) {
      const present = batch.terms.filter((term) => accountedFor(term.id)).length;
      termsAcknowledged += batch.terms.length;
      termsFound += present;
      assert.equal(
        present,
        batch.terms.length,
        `an acknowledged write of ids ${batch.terms[0]?.id}.. is lost`,
      );
    } else {
      const present = batch.terms.filter((term) => byId.has(term.id)).length;
      assert.ok(
        present === 0 || present === batch.terms.length,
        `an unacknowledged batch is stored in part (${present}/${batch.terms.length})`,
      );
      if (present === 0) unacknowledgedBatchesAbsent++;
      else unacknowledgedBatchesStored++;
    }
  }

  const file = env.DATABASE_URL?.replace(/^sqlite:/, '');
  if (file && env.DATABASE_URL?.startsWith('sqlite:')) {
    const db = openSqlite(file, { readonly: true });
    try {
      assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
    } finally {
      db.close();
    }
  }
  return {
    termsAcknowledged,
    termsFound,
    unacknowledgedBatchesStored,
    unacknowledgedBatchesAbsent,
  };
}
