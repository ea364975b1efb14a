import { Worker } from 'node:worker_threads';
import { sqliteDriverPath } from './driver.ts';

/**
 * The quiet merges of the FTS5 indexes (upkeep.ts), on a thread of their own, as the quiet
 * checkpoint is (background-checkpoint.ts). A merge step on the store's connection held the
 * event loop for its work and its commit's fsync, and steps ran back to back: every request
 * in the seconds after an import waited behind them. Here a worker thread opens the file on a
 * connection of its own and merges in steps, each its own short `BEGIN IMMEDIATE`
 * transaction; reads on the store's connection go on beside it (WAL).
 *
 * - Between two steps the worker leaves the write lock free for as long as its last step
 *   held it (2 to 50 ms): a write of the store (or of another process) that meets a step
 *   waits in SQLite's busy handler, on its own thread, for that step only, and then finds the
 *   lock free at its next try. A write also stops the merge (`stop`) once it has committed,
 *   as it always did; the next quiet moment resumes it where it stopped.
 * - Steps commit with `synchronous = NORMAL` (no fsync): a merge changes no answer, and a
 *   step lost to a power cut is merged again (the revision it merged up to is written in the
 *   same transaction as its last step). Every later commit of the store's own writes syncs
 *   the WAL, merge steps before it included, so nothing acknowledged depends on them.
 */
export interface BackgroundMerge {
  /**
   * Merges both indexes up to their end, recording `revision` as merged once nothing is left;
   * `ended` is told whether it got that far (false: stopped by a write, or failed).
   */
  start(revision: number, ended: (merged: boolean) => void): void;
  /** Whether a merge is under way (or a stopped one has not ended its step yet). */
  readonly running: boolean;
  /** Asks the merge under way to stop after its current step. */
  stop(): void;
  /** Stops the merge under way and waits for its thread to end. */
  close(): Promise<void>;
}

// CommonJS, as an evaluated worker's code is.
const SCRIPT = `
const { workerData, parentPort } = require('node:worker_threads');
const { driver, file, pages, revision, flag } = workerData;
const stopped = new Int32Array(flag);
try {
  const Sqlite = require(driver);
  const db = new Sqlite(file, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    db.pragma('synchronous = NORMAL');
    const changes = db.prepare('SELECT total_changes()').pluck();
    const merges = ['terms_fts', 'terms_words'].map((index) =>
      db.prepare('INSERT INTO ' + index + ' (' + index + ", rank) VALUES ('merge', ?)"));
    const done = db.prepare('UPDATE index_upkeep SET merged_revision = max(merged_revision, ?)');
    // A negative page count merges segments of every level, as 'optimize' does, a step at a time.
    const step = db.transaction(() => {
      let worked = false;
      for (const merge of merges) {
        const before = changes.get();
        merge.run(-pages);
        // FTS5's own test: a merge that found nothing to do changed fewer than two rows.
        if (changes.get() - before >= 2) worked = true;
      }
      if (!worked) done.run(revision);
      return worked;
    });
    let merged = false;
    while (Atomics.load(stopped, 0) === 0) {
      const began = performance.now();
      if (!step.immediate()) {
        merged = true;
        break;
      }
      const held = performance.now() - began;
      Atomics.wait(stopped, 0, 0, Math.min(50, Math.max(2, held)));
    }
    parentPort.postMessage(merged);
  } finally {
    db.close();
  }
} catch (error) {
  // SQLite's errors reach the other thread without their message: a plain Error keeps it.
  throw new Error((error.code ? error.code + ': ' : '') + error.message);
}
`;

export function backgroundMerge(file: string, pages: number): BackgroundMerge {
  let running: { worker: Worker; flag: Int32Array; ended: Promise<void> } | undefined;

  function stop(): void {
    if (!running) return;
    Atomics.store(running.flag, 0, 1);
    Atomics.notify(running.flag, 0);
  }

  return {
    get running() {
      return running !== undefined;
    },
    start(revision, ended) {
      if (running) throw new Error('a merge is under way');
      const flag = new SharedArrayBuffer(4);
      const worker = new Worker(SCRIPT, {
        eval: true,
        workerData: { driver: sqliteDriverPath(), file, pages, revision, flag },
      });
      // A thread at work never keeps the process from ending (close() waits for it instead).
      worker.unref();
      let merged = false;
      const done = new Promise<void>((resolve) => {
        worker.on('message', (value: boolean) => {
          merged = value;
        });
        // Storage trouble (disk full, the file locked by another process for too long, a
        // thread that could not start): the next quiet moment tries again, as before.
        worker.on('error', () => undefined);
        worker.on('exit', () => {
          running = undefined;
          resolve();
          ended(merged);
        });
      });
      running = { worker, flag: new Int32Array(flag), ended: done };
    },
    stop,
    async close() {
      if (!running) return;
      stop();
      // Waited for, the thread keeps the event loop alive until it ends.
      running.worker.ref();
      await running.ended;
    },
  };
}
