import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TermFilter } from '../../src/glossary/filters.ts';
import type { HistoryEntry } from '../../src/glossary/history.ts';
import type { Term } from '../../src/glossary/term.ts';
import type { TermStore } from '../../src/glossary/term-store.ts';
import { openStore } from '../../src/store/open-store.ts';

/**
 * Every storage backend the suites run against. A test file loops over this list, so each
 * assertion holds for every backend (one describe block per backend).
 *
 * PostgreSQL runs when `TEST_DATABASE_URL` names a server that answers; each location is a
 * database of its own (`glossary_test_<random>`), dropped when it is disposed. Without one the
 * PostgreSQL backend is left out with a notice on stderr, except under `CI=true`, where that
 * fails the run: CI must prove both stores.
 */
export interface Backend {
  name: string;
  /** A fresh, empty store of this backend; closing it also removes its storage. */
  open(): Promise<TermStore>;
  /** Fresh, empty storage that several stores, or server processes, can share. */
  location(): Promise<Location>;
}

export interface Location {
  /** The DATABASE_URL of this storage. */
  url: string;
  open(): Promise<TermStore>;
  dispose(): Promise<void>;
}

const storeConfig = (url: string) => ({
  database: url.startsWith('sqlite:')
    ? { kind: 'sqlite' as const, path: url.slice('sqlite:'.length) }
    : { kind: 'postgres' as const, url },
  sqliteSynchronous: 'full' as const,
  // Small pools: test files running at once share the server's max_connections.
  pgPoolSize: 5,
});

/** A store that also disposes of its location when closed. */
async function openDisposable(location: Location): Promise<TermStore> {
  const store = await location.open().catch(async (error) => {
    await location.dispose();
    throw error;
  });
  return {
    ...store,
    backend: store.backend,
    async close() {
      await store.close();
      await location.dispose();
    },
  };
}

/** The ids of every term a list of `store` gives for `filter`, in its order. */
export async function listedIds(store: TermStore, filter: TermFilter): Promise<number[]> {
  const ids: number[] = [];
  for await (const chunk of store.list(filter)) ids.push(...chunk.map((t) => t.id));
  return ids;
}

/**
 * Every entry of the id's history, newest first (empty when the id never existed), read page
 * by page as a client follows `Link: rel="next"`: each page starts before the last revision seen.
 */
export async function wholeHistory(store: TermStore, id: number): Promise<HistoryEntry[]> {
  const entries: HistoryEntry[] = [];
  for (;;) {
    const slice = await store.history(id, { limit: 100, before: entries.at(-1)?.revision });
    entries.push(...(slice?.entries ?? []));
    if (!slice || slice.entries.length < 100) return entries;
  }
}

/**
 * For tests that look under a PostgreSQL store: storage of its own with the schema migrated,
 * and a plain client on it. `dispose` ends the client and drops the database.
 */
export async function migratedPostgres(
  backend: Backend,
): Promise<{ location: Location; client: pg.Client; dispose(): Promise<void> }> {
  const location = await backend.location();
  await (await location.open()).close(); // the schema, migrated
  const client = new pg.Client(location.url);
  await client.connect();
  return {
    location,
    client,
    async dispose() {
      await client.end();
      await location.dispose();
    },
  };
}

export function tempDir(prefix = 'glossary-test-'): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export const sqliteBackend: Backend = {
  name: 'sqlite',
  async open() {
    return openDisposable(await this.location());
  },
  async location() {
    const dir = tempDir();
    const url = `sqlite:${path.join(dir, 'glossary.db')}`;
    return {
      url,
      open: () => openStore(storeConfig(url)),
      async dispose() {
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

/** Runs one statement on the database server at `serverUrl` (as the test user). */
export async function admin(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export function postgresBackend(serverUrl: string): Backend {
  return {
    name: 'postgres',
    async open() {
      return openDisposable(await this.location());
    },
    async location() {
      const name = `glossary_test_${randomBytes(6).toString('hex')}`;
      // template0 is never connected to, so parallel test files never collide on it.
      await admin(serverUrl, `CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8'`);
      const url = new URL(serverUrl);
      url.pathname = `/${name}`;
      return {
        url: url.toString(),
        open: () => openStore(storeConfig(url.toString())),
        dispose: () => admin(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
      };
    },
  };
}

/** The PostgreSQL server of TEST_DATABASE_URL, when it answers. */
async function reachablePostgres(): Promise<string | undefined> {
  const url = process.env.TEST_DATABASE_URL;
  const ci = process.env.CI === 'true';
  let problem: string;
  if (!url) {
    problem = 'TEST_DATABASE_URL is not set';
  } else {
    try {
      await admin(url, 'SELECT 1');
      return url;
    } catch (error) {
      problem = `no PostgreSQL answers at TEST_DATABASE_URL (${(error as Error).message || (error as { code?: string }).code})`;
    }
  }
  if (ci) throw new Error(`CI=true needs the PostgreSQL tests, but ${problem}`);
  process.stderr.write(`NOTICE: PostgreSQL tests skipped: ${problem}\n`);
  return undefined;
}

const postgresUrl = await reachablePostgres();

export function backends(): Backend[] {
  return postgresUrl ? [sqliteBackend, postgresBackend(postgresUrl)] : [sqliteBackend];
}

/** A term named `name`, the rest plain, for the stores' rule-8 tests. */
export const namedTerm = (id: number, name: string, other: Partial<Term> = {}): Term => ({
  id,
  term: name,
  definition: `Definition of ${name}.`,
  category: 'backend',
  see_also: [],
  ...other,
});
