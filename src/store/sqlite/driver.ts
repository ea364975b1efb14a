import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * The SQLite driver for the running Node.js. better-sqlite3 13 on Node.js 22 and later: 12
 * aborts the process on Node.js 24.19 and later when the garbage collector finalises a
 * statement (`Assertion failed: (env) != nullptr` in `RemoveEnvironmentCleanupHook`, from
 * `Statement::~Statement`), which 13 fixed. 13 does not run on Node.js 20, so there the
 * package `better-sqlite3-node20` (better-sqlite3 12, an npm alias) is loaded instead.
 *
 * Loaded when the first SQLite database is opened, not at import: npm installs each build
 * only under the Node.js lines its engines allow, so a checkout installed under another line
 * can lack this one's. A PostgreSQL glossary then starts all the same, and an SQLite one is
 * refused with a line that says what to do instead of a stack trace.
 */
const require = createRequire(import.meta.url);
const [major = 0] = process.versions.node.split('.').map(Number);

const DRIVER = major >= 22 ? 'better-sqlite3' : 'better-sqlite3-node20';

let loaded: { path: string; Sqlite: typeof BetterSqlite3 } | undefined;

function driver(): { path: string; Sqlite: typeof BetterSqlite3 } {
  if (!loaded) {
    try {
      const path = require.resolve(DRIVER);
      loaded = { path, Sqlite: require(path) };
    } catch (error) {
      const reason = String((error as Error).message ?? error).split('\n')[0];
      throw new Error(
        `the SQLite driver for Node.js ${process.versions.node} (${DRIVER}) is missing or does not load (${reason}): run npm ci under this Node.js`,
      );
    }
  }
  return loaded;
}

/** Where the driver's module is, for a worker thread to load the same one. */
export function sqliteDriverPath(): string {
  return driver().path;
}

export function openSqlite(file: string, options?: BetterSqlite3.Options): BetterSqlite3.Database {
  const { Sqlite } = driver();
  return new Sqlite(file, options);
}
