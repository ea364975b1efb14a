import fs from 'node:fs';
import path from 'node:path';
import { openSqlite } from './driver.ts';
import { inspectExistingFile } from './inspect-file.ts';
import { checkOwnFile } from './migrations.ts';

export interface BackupOutcome {
  terms: number;
  bytes: number;
}

/**
 * A consistent copy of a live glossary database into `target` (a new file), with SQLite's
 * online backup while the service goes on writing. All pages are copied in one step, under
 * one read transaction of the source: a commit by the service meanwhile cannot tear the copy
 * (SQLite restarts a step that saw the source change), and WAL mode lets the service write
 * throughout. The copy is checked before it is reported.
 */
export async function backupSqlite(file: string, target: string): Promise<BackupOutcome> {
  if (!fs.existsSync(file)) throw new Error(`there is no database at ${file}`);
  if (fs.existsSync(target)) throw new Error(`${target} exists already: back up to a new file`);
  if (!fs.existsSync(path.dirname(path.resolve(target)))) {
    throw new Error(`the folder of ${target} does not exist`);
  }
  inspectExistingFile(file);
  const source = openSqlite(file, { fileMustExist: true });
  try {
    source.pragma('busy_timeout = 5000');
    checkOwnFile(source, file);
    // Every page in each step (however much the service adds meanwhile), so no step leaves
    // pages for a next one that a commit in between would restart.
    await source.backup(target, { progress: () => 0x7fffffff });
  } finally {
    source.close();
  }
  const copy = openSqlite(target, { readonly: true, fileMustExist: true });
  try {
    const check = copy.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new Error(`the copy at ${target} failed its check: ${check}`);
    const terms = copy.prepare('SELECT count(*) FROM terms').pluck().get() as number;
    return { terms, bytes: fs.statSync(target).size };
  } finally {
    copy.close();
  }
}
