import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { SchemaError, StoreUnavailableError } from '../errors.ts';
import type { SqliteSynchronous } from '../location.ts';
import { openSqlite } from './driver.ts';
import { guard, isReadOnly, namingFile } from './errors.ts';
import { inspectExistingFile } from './inspect-file.ts';
import { APPLICATION_ID, checkOwnFile, migrate } from './migrations.ts';

/**
 * WAL pages after which a commit copies the WAL back into the file (SQLite's default is 1000).
 * A checkpoint copies each page once however often it was written since the last, and writes
 * keep rewriting the same pages (index leaves, FTS5 segments, the revision): grouped single
 * creates take less CPU each and run faster in the store with a WAL this long
 * (docs/performance.md). When writes stop, the index upkeep checkpoints the rest.
 */
const WAL_AUTOCHECKPOINT = 10_000;

/**
 * Bytes of the database file a connection reads through a memory map of it, rather than with
 * a `read()` into its own page cache (2 MB by default, so at 100,000 terms nearly every term
 * read is a system call and a copy). The pages are the operating system's file cache either
 * way: mapped, they are shared, not copied, and count in the process's RSS (as `RssFile`).
 * `GET /terms/{id}` costs 10-15% less CPU at 100,000 and 1,000,000 terms
 * (docs/performance.md). The price, as SQLite documents it: an I/O error while reading a mapped
 * page (a failing disk) is a SIGBUS that ends the process instead of a 503. Writes still go
 * through `write()`, and pages still in the WAL are read from it as before.
 */
const MMAP_SIZE = 1 << 30;

/** Read the file through a memory map (`MMAP_SIZE`): every connection the store opens on it. */
export function readThroughMap(db: Database.Database): void {
  db.pragma(`mmap_size = ${MMAP_SIZE}`);
}

/**
 * The database file opened for the store: its folder made, a foreign or newer file refused
 * untouched (`inspected`: the caller has just looked, see `inspectExistingFileAside`), WAL mode,
 * migrated, and a write tried (`startFailure`, see `startupWriteFailure`).
 */
export function openFile(
  file: string,
  options: { synchronous: SqliteSynchronous; busyTimeoutMs: number; inspected?: boolean },
): { db: Database.Database; startFailure: StoreUnavailableError | null } {
  let db: Database.Database;
  try {
    if (file !== ':memory:') makeFolders(path.dirname(file), file);
    if (!options.inspected) inspectExistingFile(file);
    db = openSqlite(file);
  } catch (error) {
    throw namingFile(error, file);
  }
  try {
    // First, so that even switching to WAL waits for another process instead of failing.
    db.pragma(`busy_timeout = ${options.busyTimeoutMs}`);
    // Before anything writes (switching to WAL rewrites the header): a foreign or newer file
    // is refused untouched.
    checkOwnFile(db, file);
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${options.synchronous}`);
    db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT}`);
    readThroughMap(db);
    migrate(db, file);
    return { db, startFailure: startupWriteFailure(db, file) };
  } catch (error) {
    db.close();
    throw namingFile(error, file);
  }
}

/**
 * Rewriting the application id with its own value commits one page to the WAL: the smallest
 * write that goes all the way to the disk (a rolled-back probe would never leave the cache).
 * It probes writability at start and, after a failed write, for readiness.
 */
export function probeWrite(db: Database.Database): void {
  db.pragma(`application_id = ${APPLICATION_ID}`);
}

/**
 * One committed write at start. A file SQLite could open only read-only stays read-only for
 * the life of the connection, so the service could never recover: it is refused. Any other
 * storage failure (disk full) is reported by readiness until a write succeeds.
 */
function startupWriteFailure(db: Database.Database, file: string): StoreUnavailableError | null {
  try {
    guard(() => probeWrite(db));
    return null;
  } catch (error) {
    if (isReadOnly(error)) {
      throw new SchemaError(`${file} is read-only; the service must be able to write to it`);
    }
    if (error instanceof StoreUnavailableError) return error;
    throw error;
  }
}

/**
 * Creates the database's folder and any missing parents, one level at a time: Node's
 * recursive mkdir spins forever under /proc, where creating fails as if the parent were
 * missing. A folder that cannot be made is an error that names it.
 */
function makeFolders(dir: string, file: string): void {
  const missing: string[] = [];
  for (let at = path.resolve(dir); !fs.existsSync(at); at = path.dirname(at)) {
    missing.unshift(at);
    if (path.dirname(at) === at) break;
  }
  for (const folder of missing) {
    try {
      fs.mkdirSync(folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw new Error(
        `cannot create the folder ${folder} for the database ${file} (${(error as NodeJS.ErrnoException).code})`,
      );
    }
  }
}
