import type Database from 'better-sqlite3';
import { openSqlite } from './driver.ts';
import { readThroughMap } from './open-file.ts';
import { createReads, type Reads } from './read-statements.ts';

/** A read connection with its statements: the store's own, or one holding a list's snapshot. */
export interface Reader {
  db: Database.Database;
  reads: Reads;
}

/** Read connections kept open for snapshot lists when none is in use. */
const IDLE_READERS = 2;

/**
 * A list longer than one chunk is read on a connection of its own inside one read
 * transaction, so every chunk comes from the same snapshot (WAL lets writers go on). The
 * store's own connection cannot hold it: its statements run for every other request.
 */
export class SnapshotReaders {
  private readonly idle: Reader[] = [];
  private readonly open = new Set<Reader>();

  constructor(
    private readonly file: string,
    private readonly busyTimeoutMs: number,
    /** Whether the store is still open: a reader given back after it closed is closed. */
    private readonly storeOpen: () => boolean,
  ) {}

  /** A reader inside a read transaction of its own. */
  take(): Reader {
    const reader = this.idle.pop() ?? this.connect();
    this.open.add(reader);
    reader.db.exec('BEGIN');
    return reader;
  }

  giveBack(reader: Reader): void {
    this.open.delete(reader);
    try {
      if (reader.db.inTransaction) reader.db.exec('COMMIT');
    } catch {
      reader.db.close();
      return;
    }
    if (this.idle.length < IDLE_READERS && this.storeOpen()) this.idle.push(reader);
    else reader.db.close();
  }

  close(): void {
    for (const reader of [...this.idle, ...this.open]) reader.db.close();
    this.idle.length = 0;
  }

  private connect(): Reader {
    const connection = openSqlite(this.file, { readonly: true, fileMustExist: true });
    connection.pragma(`busy_timeout = ${this.busyTimeoutMs}`);
    readThroughMap(connection);
    return { db: connection, reads: createReads(connection) };
  }
}
