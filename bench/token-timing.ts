/**
 * Does the time of a refused token tell whether its lookup key exists? Sends, in random
 * order, tokens whose lookup key a stored token has (wrong secret) and tokens whose key none
 * has, through the whole app (inject) and to verifyToken alone, on each store, and prints the
 * median of each and their difference. `node --import tsx bench/token-timing.ts [samples]
 * [control]`; PostgreSQL when TEST_DATABASE_URL is set, SQLite unless ONLY=postgres. `control`
 * sends two unknown keys instead, for the noise between two equal kinds.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.ts';
import { newToken, verifyToken } from '../src/glossary/access.ts';
import type { TermStore } from '../src/glossary/term-store.ts';
import { buildApp } from '../src/http/app.ts';
import { openStore } from '../src/store/open-store.ts';

const SAMPLES = Number(process.argv[2] ?? 20_000);
const CONTROL = process.argv[3] === 'control';

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

async function stores(): Promise<{ name: string; store: TermStore; done: () => Promise<void> }[]> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'token-timing-'));
  const config = loadConfig({ DATABASE_URL: `sqlite:${path.join(folder, 'g.db')}` });
  const sqlite = await openStore(config);
  const list =
    process.env.ONLY === 'postgres'
      ? []
      : [
          {
            name: 'sqlite',
            store: sqlite,
            done: async () => {
              await sqlite.close();
              fs.rmSync(folder, { recursive: true, force: true });
            },
          },
        ];
  const url = process.env.TEST_DATABASE_URL;
  if (url) {
    const { default: pg } = await import('pg');
    const database = `glossary_timing_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    const target = new URL(url);
    target.pathname = `/${database}`;
    const postgres = await openStore(loadConfig({ DATABASE_URL: target.toString() }));
    list.push({
      name: 'postgres',
      store: postgres,
      done: async () => {
        await postgres.close();
        await admin.query(`DROP DATABASE ${database}`);
        await admin.end();
      },
    });
  }
  return list;
}

for (const { name, store, done } of await stores()) {
  const { token, stored } = newToken('bench', 'write');
  await store.addToken(stored);
  // Same lookup key, another secret; and a lookup key no token has.
  const knownKey = CONTROL
    ? `glos_${'Y'.repeat(12)}${'A'.repeat(token.length - 17)}`
    : `${token.slice(0, 17)}${'A'.repeat(token.length - 17)}`;
  const unknownKey = `glos_${'Z'.repeat(12)}${'A'.repeat(token.length - 17)}`;
  const app = await buildApp({
    config: { ...loadConfig({}), logLevel: 'silent', authFailureLimit: null },
    store,
    logger: false,
  });
  await app.ready();
  const ways = {
    http: async (presented: string) => {
      const response = await app.inject({
        method: 'DELETE',
        url: '/terms/1',
        headers: { authorization: `Bearer ${presented}` },
      });
      if (response.statusCode !== 401) throw new Error(`expected 401, got ${response.statusCode}`);
    },
    verifyToken: async (presented: string) => {
      if (await verifyToken(store, presented)) throw new Error('a guess was accepted');
    },
  };
  for (const [way, send] of Object.entries(ways)) {
    const times: Record<'known' | 'unknown', number[]> = { known: [], unknown: [] };
    for (let i = 0; i < 2000; i += 1) await send(i % 2 ? knownKey : unknownKey); // warm up
    for (let i = 0; i < 2 * SAMPLES; i += 1) {
      const kind = Math.random() < 0.5 ? 'known' : 'unknown';
      const start = process.hrtime.bigint();
      await send(kind === 'known' ? knownKey : unknownKey);
      times[kind].push(Number(process.hrtime.bigint() - start) / 1000);
    }
    const known = median(times.known);
    const unknown = median(times.unknown);
    console.log(
      `${name} ${way}: key exists ${known.toFixed(2)} µs, key unknown ${unknown.toFixed(2)} µs, difference ${(known - unknown).toFixed(2)} µs (medians of ${times.known.length} and ${times.unknown.length})`,
    );
  }
  await app.close();
  await done();
}
