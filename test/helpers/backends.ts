import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { TermStore } from '../../src/store/term-store.ts';

/**
 * Every storage backend the suites run against. A test file loops over this list, so each
 * assertion holds for every backend (one describe block per backend).
 */
export interface Backend {
  name: string;
  /** A fresh, empty store of this backend. */
  open(): Promise<TermStore>;
}

export function tempDir(prefix = 'glossary-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export const sqliteBackend: Backend = {
  name: 'sqlite',
  async open() {
    return openSqliteStore(path.join(tempDir(), 'glossary.db'));
  },
};

export function backends(): Backend[] {
  return [sqliteBackend];
}
