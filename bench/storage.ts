import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { Options, Store } from './options.ts';

/** Where the service keeps its terms for a run, and how to throw it away afterwards. */
export interface Storage {
  url: string;
  /** After a bulk load: what PostgreSQL's autovacuum would soon do anyway. */
  settle: () => Promise<void>;
  /**
   * PostgreSQL: the pids of the server's backends connected to the bench's database (local
   * processes: their CPU is read from /proc like the service's).
   */
  backendPids?: () => Promise<number[]>;
  dispose: () => Promise<void>;
}

export async function storage(store: Store, o: Pick<Options, 'postgres'>): Promise<Storage> {
  if (store === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'glossary-bench-'));
    return {
      url: `sqlite:${path.join(dir, 'glossary.db')}`,
      settle: async () => undefined,
      dispose: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  const name = `glossary_bench_${Date.now()}`;
  const admin = async (sql: string, database = o.postgres) => {
    const client = new pg.Client({ connectionString: database });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8'`);
  const url = new URL(o.postgres);
  url.pathname = `/${name}`;
  // One connection to the server's own database (not the bench's, so its backend is not
  // counted) asks which backends serve the bench's database, at every CPU reading.
  const watcher = new pg.Client({ connectionString: o.postgres });
  await watcher.connect();
  return {
    url: url.toString(),
    settle: () => admin('VACUUM (ANALYZE) terms', url.toString()),
    backendPids: async () =>
      (
        await watcher.query<{ pid: number }>(
          'SELECT pid FROM pg_stat_activity WHERE datname = $1',
          [name],
        )
      ).rows.map((row) => row.pid),
    dispose: async () => {
      await watcher.end();
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}
