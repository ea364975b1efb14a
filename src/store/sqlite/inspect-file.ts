import fs from 'node:fs';
import type Database from 'better-sqlite3';
import { SchemaError } from '../errors.ts';
import { openSqlite } from './driver.ts';
import { checkOwnFile } from './migrations.ts';

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
const SIDECARS = ['-wal', '-shm', '-journal'];

/**
 * Looks at an existing database file before the service opens it for writing, and refuses it
 * (SchemaError, one line) when it is not an SQLite file, belongs to another application, has a
 * newer schema, or is corrupt. Everything here only reads: a refused file is left byte for
 * byte as it was, its journal mode is never switched, and sidecar files that the look itself
 * created are removed again.
 */
export function inspectExistingFile(file: string): void {
  if (file === ':memory:' || !fs.existsSync(file) || fs.statSync(file).size === 0) return;
  if (!startsWithMagic(file)) {
    throw new SchemaError(`${file} is not a database (no SQLite header); refusing to touch it`);
  }
  const existing = SIDECARS.filter((suffix) => fs.existsSync(file + suffix));
  let db: Database.Database | undefined;
  try {
    db = openSqlite(file, { readonly: true, fileMustExist: true });
    checkOwnFile(db, file);
    const problems = db.pragma('quick_check(5)', { simple: false }) as Record<string, string>[];
    const first = Object.values(problems[0] ?? {})[0];
    if (first !== 'ok') {
      throw new SchemaError(
        `${file} is corrupt (${oneLine(first ?? 'unknown')}); restore it from a backup`,
      );
    }
  } catch (error) {
    db?.close();
    db = undefined;
    for (const suffix of SIDECARS) {
      if (!existing.includes(suffix)) fs.rmSync(file + suffix, { force: true });
    }
    if (error instanceof SchemaError) throw error;
    const code = (error as { code?: unknown }).code;
    if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB') {
      throw new SchemaError(
        `${file} is corrupt (${oneLine((error as Error).message)}); restore it from a backup`,
      );
    }
    throw error;
  } finally {
    db?.close();
  }
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
