import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * The SQLite driver for the running Node.js. better-sqlite3 13 on Node.js 22 and later: 12
 * aborts the process on Node.js 24.19 and later when the garbage collector finalises a
 * statement (`Assertion failed: (env) != nullptr` in `RemoveEnvironmentCleanupHook`, from
 * `Statement::~Statement`), which 13 fixed. 13 does not run on Node.js 20, so there the
 * package `better-sqlite3-node20` (better-sqlite3 12, an npm alias) is loaded instead.
 */
const require = createRequire(import.meta.url);
const [major = 0] = process.versions.node.split('.').map(Number);

const DRIVER = major >= 22 ? 'better-sqlite3' : 'better-sqlite3-node20';

/** Where the driver's module is, for a worker thread to load the same one. */
export const SQLITE_DRIVER_PATH = require.resolve(DRIVER);
export const Sqlite: typeof BetterSqlite3 = require(DRIVER);
