import { Worker } from 'node:worker_threads';
import type { Warn } from '../../glossary/term-store.ts';
import { sqliteDriverPath } from './driver.ts';

/**
 * The quiet checkpoint (upkeep.ts), on a thread of its own. Copying the WAL back into
 * the file (up to WAL_AUTOCHECKPOINT pages, 41 MB, and an fsync) took the store's connection
 * for as long as it lasted, and better-sqlite3 runs on the event loop's thread, so every
 * request waited for it. Here a short-lived worker thread opens the file on a connection of
 * its own, runs a PASSIVE checkpoint (it waits for no reader or writer; SQLite's locks keep it
 * safe beside the store's writes, and beside other processes' checkpoints) and exits.
 *
 * One runs at a time: asked again while one runs, it runs once more when that one ends. A
 * checkpoint that fails (storage trouble, another process checkpointing for too long, a thread
 * that could not start) is told through `warn` and left for the next quiet moment, as before;
 * the WAL just stays longer until then.
 */
export interface BackgroundCheckpoint {
  /** Starts a checkpoint and returns at once. */
  start(): void;
  /** Waits for a checkpoint under way to end; none starts after. */
  close(): Promise<void>;
}

// CommonJS, as an evaluated worker's code is.
const SCRIPT = `
const { workerData } = require('node:worker_threads');
try {
  const Sqlite = require(workerData.driver);
  const db = new Sqlite(workerData.file, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 1000');
    db.pragma('synchronous = ' + workerData.synchronous);
    db.pragma('wal_checkpoint(PASSIVE)');
  } finally {
    db.close();
  }
} catch (error) {
  // SQLite's errors reach the other thread without their message: a plain Error keeps it.
  throw new Error((error.code ? error.code + ': ' : '') + error.message);
}
`;

export function backgroundCheckpoint(
  file: string,
  synchronous: string,
  warn: Warn,
): BackgroundCheckpoint {
  let running: { worker: Worker; ended: Promise<void> } | undefined;
  let again = false;
  let closed = false;

  function start(): void {
    if (closed) return;
    if (running) {
      again = true;
      return;
    }
    const worker = new Worker(SCRIPT, {
      eval: true,
      workerData: { driver: sqliteDriverPath(), file, synchronous },
    });
    // A thread at work never keeps the process from ending (close() waits for it instead).
    worker.unref();
    const ended = new Promise<void>((resolve) => {
      worker.on('error', (error) =>
        warn(
          'could not copy the WAL back into the database file (a checkpoint); will try again once quiet after the next write',
          error,
        ),
      );
      worker.on('exit', () => {
        running = undefined;
        resolve();
        if (again) {
          again = false;
          start();
        }
      });
    });
    running = { worker, ended };
  }

  return {
    start,
    async close() {
      closed = true;
      again = false;
      if (!running) return;
      // Waited for, the thread keeps the event loop alive until it ends.
      running.worker.ref();
      await running.ended;
    },
  };
}
