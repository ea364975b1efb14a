import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { SchemaError } from '../errors.ts';
import { openSqlite, sqliteDriverPath } from './driver.ts';
import { checkOwnFile } from './migrations.ts';

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
const SIDECARS = ['-wal', '-shm', '-journal'];
/** SQLite's page-by-page check; the first problem is enough to refuse the file. */
const QUICK_CHECK = 'quick_check(5)';

/**
 * Looks at an existing database file before the service opens it for writing, and refuses it
 * (SchemaError, one line) when it is not an SQLite file, belongs to another application, has a
 * newer schema, or is corrupt. Everything here only reads: a refused file is left byte for
 * byte as it was, its journal mode is never switched, and sidecar files that the look itself
 * created are removed again.
 */
export function inspectExistingFile(file: string): void {
  if (!isThere(file)) return;
  const existing = sidecarsOf(file);
  try {
    withReadOnly(file, (db) => {
      checkOwnFile(db, file);
      refuseProblem(file, firstProblem(db.pragma(QUICK_CHECK, { simple: false })));
    });
  } catch (error) {
    throw refused(error, file, existing);
  }
}

/**
 * The same look, its page-by-page check on a thread of its own, so that the event loop stays
 * free meanwhile (the check reads the whole file: seconds at a million terms). The header and
 * the owner are checked here first, at once.
 */
export async function inspectExistingFileAside(file: string): Promise<void> {
  if (!isThere(file)) return;
  const existing = sidecarsOf(file);
  try {
    withReadOnly(file, (db) => checkOwnFile(db, file));
    refuseProblem(file, await quickCheckOnThread(file));
  } catch (error) {
    throw refused(error, file, existing);
  }
}

function isThere(file: string): boolean {
  if (file === ':memory:' || !fs.existsSync(file) || fs.statSync(file).size === 0) return false;
  if (!startsWithMagic(file)) {
    throw new SchemaError(`${file} is not a database (no SQLite header); refusing to touch it`);
  }
  return true;
}

const sidecarsOf = (file: string) => SIDECARS.filter((suffix) => fs.existsSync(file + suffix));

function withReadOnly(file: string, look: (db: Database.Database) => void): void {
  const db = openSqlite(file, { readonly: true, fileMustExist: true });
  try {
    look(db);
  } finally {
    db.close();
  }
}

function firstProblem(rows: unknown): string | undefined {
  const [first] = rows as Record<string, string>[];
  return Object.values(first ?? {})[0];
}

function refuseProblem(file: string, problem: string | undefined): void {
  if (problem !== 'ok') {
    throw new SchemaError(
      `${file} is corrupt (${oneLine(problem ?? 'unknown')}); restore it from a backup`,
    );
  }
}

/** The error to throw for a file refused: sidecars the look made are removed first. */
function refused(error: unknown, file: string, existing: string[]): unknown {
  for (const suffix of SIDECARS) {
    if (!existing.includes(suffix)) fs.rmSync(file + suffix, { force: true });
  }
  if (error instanceof SchemaError) return error;
  const code = (error as { code?: unknown }).code;
  if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB') {
    return new SchemaError(
      `${file} is corrupt (${oneLine((error as Error).message)}); restore it from a backup`,
    );
  }
  return error;
}

// CommonJS, as an evaluated worker's code is. SQLite's errors reach the other thread without
// their code, so it travels in the message.
const CHECK_SCRIPT = `
const { workerData, parentPort } = require('node:worker_threads');
let db;
try {
  const Sqlite = require(workerData.driver);
  db = new Sqlite(workerData.file, { readonly: true, fileMustExist: true });
  const [first] = db.pragma(workerData.pragma, { simple: false });
  parentPort.postMessage({ problem: first ? Object.values(first)[0] : undefined });
} catch (error) {
  parentPort.postMessage({ error: String(error.message), code: error.code });
} finally {
  db?.close();
}
`;

function quickCheckOnThread(file: string): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(CHECK_SCRIPT, {
      eval: true,
      workerData: { driver: sqliteDriverPath(), file, pragma: QUICK_CHECK },
    });
    let answered = false;
    worker.once('message', (message: { problem?: string; error?: string; code?: string }) => {
      answered = true;
      if (message.error === undefined) resolve(message.problem);
      else reject(Object.assign(new Error(message.error), { code: message.code }));
    });
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (!answered) reject(new Error(`the file's check ended without an answer (exit ${code})`));
    });
  });
}

function startsWithMagic(file: string): boolean {
  const fd = fs.openSync(file, 'r');
  try {
    const head = Buffer.alloc(SQLITE_MAGIC.length);
    const read = fs.readSync(fd, head, 0, head.length, 0);
    return read === head.length && head.equals(SQLITE_MAGIC);
  } finally {
    fs.closeSync(fd);
  }
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, 200);
}
