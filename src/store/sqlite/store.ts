import fs from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import type { ListOptions } from '../../glossary/filters.ts';
import { anonymousChange, type Change } from '../../glossary/history.ts';
import type { Term } from '../../glossary/term.ts';
import type { TermStore, Warn } from '../../glossary/term-store.ts';
import type { StoredToken, TokenInfo, TokenKind } from '../../glossary/tokens.ts';
import { SchemaError, StoreUnavailableError } from '../errors.ts';
import { gatherById, gatherOne } from '../gathered-reads.ts';
import type { SqliteSynchronous } from '../location.ts';
import { backgroundCheckpoint } from './background-checkpoint.ts';
import { openSqlite } from './driver.ts';
import { historyReads } from './history.ts';
import { inspectExistingFile } from './inspect-file.ts';
import { APPLICATION_ID, checkOwnFile, migrate } from './migrations.ts';
import { createReads, planMemory, type Reads, termById, toTerm } from './read-statements.ts';
import { createIndexUpkeep, type IndexUpkeepOptions } from './upkeep.ts';
import { createVocabulary } from './vocabulary.ts';
import { createWrites } from './writes.ts';

/**
 * The embedded store: one SQLite file in WAL mode. With `synchronous=FULL` (the default) a
 * commit returns only after the WAL is fsynced, so an acknowledged write survives a crash and
 * a power loss. Writers take the lock up front (`BEGIN IMMEDIATE`), so several processes on
 * one file serialise instead of failing half-way.
 */

export interface SqliteStoreOptions {
  synchronous?: SqliteSynchronous;
  busyTimeoutMs?: number;
  /**
   * When the FTS5 indexes are merged and the WAL checkpointed once quiet (index-upkeep.ts); the
   * defaults suit the service.
   */
  indexUpkeep?: IndexUpkeepOptions;
  /** Told of a failure the store works around (a quiet checkpoint that failed); the caller logs it. */
  warn?: Warn;
}

/** Rows per chunk of a streamed list. */
const LIST_CHUNK = 500;
/** Read connections kept open for snapshot lists when none is in use. */
const IDLE_READERS = 2;
/**
 * WAL pages after which a commit copies the WAL back into the file (SQLite's default is 1000).
 * A checkpoint copies each page once however often it was written since the last, and writes
 * keep rewriting the same pages (index leaves, FTS5 segments, the revision): at 10,000 (a WAL
 * of up to 41 MB) grouped single creates, 16 a commit, took 15-18% less CPU each and ran 27-30%
 * faster in the store (docs/performance.md). When writes stop, the index upkeep checkpoints the
 * rest.
 */
const WAL_AUTOCHECKPOINT = 10_000;

/** SQLite result codes that mean "the storage cannot do this now", not "the request is bad". */
const UNAVAILABLE = /^SQLITE_(FULL|READONLY|IOERR|BUSY|LOCKED|CANTOPEN|NOTADB|CORRUPT|PROTOCOL)/;

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

export function openSqliteStore(file: string, options: SqliteStoreOptions = {}): TermStore {
  let db: Database.Database;
  try {
    if (file !== ':memory:') makeFolders(path.dirname(file), file);
    inspectExistingFile(file);
    db = openSqlite(file);
  } catch (error) {
    throw namingFile(error, file);
  }
  try {
    // First, so that even switching to WAL waits for another process instead of failing.
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    // Before anything writes (switching to WAL rewrites the header): a foreign or newer file
    // is refused untouched.
    checkOwnFile(db, file);
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${options.synchronous ?? 'full'}`);
    db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT}`);
    migrate(db, file);
    return sqliteStore(db, file, options, startupWriteFailure(db, file));
  } catch (error) {
    db.close();
    throw namingFile(error, file);
  }
}

/** SQLite's and the file system's own messages ("unable to open database file") say no file. */
function namingFile(error: unknown, file: string): Error {
  if (error instanceof SchemaError) return error;
  const message = (error as Error).message ?? String(error);
  return message.includes(file)
    ? (error as Error)
    : new Error(`${file}: ${message}`, { cause: error });
}

/**
 * Rewriting the application id with its own value commits one page to the WAL: the smallest
 * write that goes all the way to the disk (a rolled-back probe would never leave the cache).
 * It probes writability at start and, after a failed write, for readiness.
 */
function probeWrite(db: Database.Database): void {
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
    const code = ((error as Error).cause as { code?: unknown } | undefined)?.code;
    if (typeof code === 'string' && code.startsWith('SQLITE_READONLY')) {
      throw new SchemaError(`${file} is read-only; the service must be able to write to it`);
    }
    if (error instanceof StoreUnavailableError) return error;
    throw error;
  }
}

/** A read connection with its statements: the store's own, or one holding a list's snapshot. */
interface Reader {
  db: Database.Database;
  reads: Reads;
}

function sqliteStore(
  db: Database.Database,
  file: string,
  options: SqliteStoreOptions,
  startFailure: StoreUnavailableError | null,
): TermStore {
  const main: Reader = { db, reads: createReads(db) };
  const vocabulary = createVocabulary(db, options.indexUpkeep?.keepRemovalsMs);
  // An in-memory database has no WAL to copy back.
  const checkpoints =
    file === ':memory:'
      ? undefined
      : backgroundCheckpoint(
          file,
          options.synchronous ?? 'full',
          options.warn ?? (() => undefined),
        );
  const upkeep = createIndexUpkeep(
    db,
    () => checkpoints?.start(),
    options.indexUpkeep,
    vocabulary.purge,
  );
  const historyOf = historyReads(db);
  const writes = createWrites(db, vocabulary, historyOf);
  const memory = planMemory();

  // A list longer than one chunk is read on a connection of its own inside one read
  // transaction, so every chunk comes from the same snapshot (WAL lets writers go on). The
  // store's own connection cannot hold it: its statements run for every other request.
  const idle: Reader[] = [];
  const openReaders = new Set<Reader>();
  function takeReader(): Reader {
    const reader = idle.pop() ?? openReader();
    openReaders.add(reader);
    reader.db.exec('BEGIN');
    return reader;
  }
  function openReader(): Reader {
    const connection = openSqlite(file, { readonly: true, fileMustExist: true });
    connection.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    return { db: connection, reads: createReads(connection) };
  }
  function giveBack(reader: Reader): void {
    openReaders.delete(reader);
    try {
      if (reader.db.inTransaction) reader.db.exec('COMMIT');
    } catch {
      reader.db.close();
      return;
    }
    if (idle.length < IDLE_READERS && main.db.open) idle.push(reader);
    else reader.db.close();
  }

  // A write that failed for a storage reason (disk full, read-only file, I/O error) is
  // remembered until a write succeeds again, so readiness reports it instead of a read that
  // still works. While it is remembered, `check` probes with a real committed write.
  let writeFailure: StoreUnavailableError | null = startFailure;
  function write<A extends unknown[], T>(work: (...args: A) => T): (...args: A) => T {
    const transaction = db.transaction(work);
    return (...args) => {
      try {
        const result = guard(() => transaction.immediate(...args));
        writeFailure = null;
        upkeep.schedule();
        return result;
      } catch (error) {
        if (error instanceof StoreUnavailableError) writeFailure = error;
        throw error;
      }
    };
  }
  const createMany = write(writes.createMany);

  // Group commit. Single creates that arrive together (parsed in the same turn of the event
  // loop, typically while the previous commit waited for its fsync) share one transaction and
  // one fsync; each caller is answered only after that commit, so nothing is acknowledged
  // before it is on disk. They are stored in the order they were asked for. If the shared
  // commit fails, each is tried on its own, so one caller's failure is never another's.
  let waiting: { term: Term; change: Change; done: (error?: unknown) => void }[] = [];
  function commitWaiting(): void {
    const batch = waiting;
    waiting = [];
    try {
      createMany(batch);
    } catch (error) {
      if (batch.length === 1) {
        for (const entry of batch) entry.done(error);
        return;
      }
      for (const entry of batch) {
        try {
          createMany([entry]);
          entry.done();
        } catch (alone) {
          entry.done(alone);
        }
      }
      return;
    }
    for (const entry of batch) entry.done();
  }
  const importMany = write(writes.importMany);
  const update = write(writes.update);
  const remove = write(writes.remove);
  const restore = write(writes.restore);
  const probe = write(() => probeWrite(db));
  // One read transaction: the page, its count and the live rows from one snapshot.
  const history = db.transaction(historyOf.page);
  const readable = db.prepare('SELECT count(*) FROM (SELECT 1 FROM terms LIMIT 1)');

  // Counting a large filter reads its whole index: a count is kept for as long as the
  // glossary stays at the revision it was taken at (rule 3), also when other processes write.
  const countCache = new Map<string, { revision: string; count: number }>();

  // Reads by id asked in one turn of the event loop are read together at its end, in one read
  // transaction: after every caller asked, so none misses a write acknowledged before it asked.
  const getById = gatherById(async (ids) => guard(() => main.reads.getMany(ids)));
  // The revision (every list's ETag) is read once for all who asked in the turn, the same way.
  const revisionOf = gatherOne(async () => guard(() => main.reads.revision()));
  // Statements of one read run in one read transaction: the file is locked and unlocked once.
  const inRead = db.transaction((work: () => unknown) => work());
  const together = <T>(work: () => T): T => inRead(work) as T;

  const tokens = tokenStatements(db);
  // Asked by every request that needs access (writes, and reads with READ_ACCESS=token).
  const anyTokens = gatherOne(async () => guard(() => tokens.any.get() !== undefined));
  // A file upgraded to migration 7, or left unmerged by a restart, is merged once quiet.
  upkeep.schedule();

  return {
    backend: 'sqlite',
    async get(id) {
      const row = await getById(id);
      return row && termById(id, row);
    },
    async *list(filter, options: ListOptions = {}) {
      const sort = options.sort ?? 'created';
      let remaining = options.limit ?? Number.POSITIVE_INFINITY;
      const offset = options.offset ?? 0;
      // The first chunk is read on the store's own connection: most lists (every page, every
      // selective search, most levels of a `q`) end there. A list that goes on is read again
      // from its start on a connection of its own inside one read transaction, so every chunk
      // comes from one snapshot (other processes may have written since the first read).
      const first = () => ({ limit: Math.min(LIST_CHUNK, remaining), offset });
      let [p, rows] = guard(() =>
        together(() => {
          const plan = main.reads.plan(filter, memory, undefined, offset + remaining);
          return [plan, main.reads.chunk(plan, sort, first())] as const;
        }),
      );
      if (remaining <= LIST_CHUNK || rows.length < LIST_CHUNK) {
        if (rows.length > 0) yield rows.map(toTerm);
        return;
      }
      // An in-memory database is one connection: no other could write to it meanwhile.
      const reader = file === ':memory:' ? main : guard(takeReader);
      try {
        if (reader !== main) {
          p = guard(() => reader.reads.plan(filter, memory, undefined, offset + remaining));
          rows = guard(() => reader.reads.chunk(p, sort, first()));
        }
        for (;;) {
          if (rows.length > 0) yield rows.map(toTerm);
          const after = rows.at(-1);
          remaining -= rows.length;
          if (!after || rows.length < LIST_CHUNK || remaining <= 0) return;
          const limit = Math.min(LIST_CHUNK, remaining);
          rows = guard(() => reader.reads.chunk(p, sort, { limit, offset: 0, after }));
        }
      } finally {
        if (reader !== main) giveBack(reader);
      }
    },
    async count(filter, atMost) {
      const cacheKey = JSON.stringify([filter.category, filter.search, filter.range, filter.text]);
      return guard(() =>
        together(() => {
          const now = main.reads.revision();
          const cached = countCache.get(cacheKey);
          if (cached?.revision === now) return Math.min(cached.count, atMost ?? cached.count);
          const p = main.reads.plan(filter, memory, now);
          // A bounded count is not the count: it is answered, not kept.
          if (atMost !== undefined) return main.reads.count(p, atMost);
          const count = main.reads.count(p);
          if (countCache.size >= 256) countCache.clear();
          countCache.set(cacheKey, { revision: now, count });
          return count;
        }),
      );
    },
    revision: revisionOf,
    async similarWords(word, max) {
      return guard(() => vocabulary.similar(word, max));
    },
    async existingIds(ids) {
      return new Set(guard(() => main.reads.existing(ids)));
    },
    create(term, change = anonymousChange()) {
      return new Promise<void>((resolve, reject) => {
        waiting.push({
          term,
          change,
          done: (error) => (error === undefined ? resolve() : reject(error)),
        });
        if (waiting.length === 1) setImmediate(commitWaiting);
      });
    },
    async importMany(terms, change = anonymousChange()) {
      return importMany(terms, change);
    },
    async update(id, edit, change) {
      return update(id, edit, change);
    },
    async remove(id, confirm, change) {
      return remove(id, confirm, change);
    },
    async history(id, page) {
      return guard(() => history.deferred(id, page));
    },
    async restore(id, revision, confirm, change) {
      return restore(id, revision, confirm, change);
    },
    async addToken(token) {
      return write(() =>
        tokens.insert.run(tokenRow(token)).changes > 0 ? 'added' : 'name-taken',
      )();
    },
    async listTokens() {
      return guard(() => tokens.list.all().map(tokenInfo));
    },
    async revokeToken(name) {
      return write(() => tokens.remove.run(name).changes > 0)();
    },
    async findToken(lookup) {
      const row = guard(() => tokens.find.get(lookup)) as TokenRow & { found: 0 | 1 };
      return { ...tokenInfo(row), lookup: row.lookup, hash: row.hash, found: row.found === 1 };
    },
    hasTokens: anyTokens,
    async check() {
      guard(() => readable.get());
      if (writeFailure) probe();
    },
    async close() {
      upkeep.close();
      await checkpoints?.close();
      for (const reader of [...idle, ...openReaders]) reader.db.close();
      idle.length = 0;
      if (db.open) db.close();
    },
  };
}

interface TokenRow {
  name: string;
  lookup: string;
  hash: Buffer;
  kind: TokenKind;
  created_at: number;
}

function tokenStatements(db: Database.Database) {
  return {
    insert: db.prepare<[TokenRow]>(
      `INSERT INTO tokens (name, lookup, hash, kind, created_at)
       VALUES (@name, @lookup, @hash, @kind, @created_at) ON CONFLICT (name) DO NOTHING`,
    ),
    list: db.prepare<[], TokenRow>('SELECT * FROM tokens ORDER BY name'),
    remove: db.prepare<[string]>('DELETE FROM tokens WHERE name = ?'),
    // One row whether or not a token has the key: the token's, or a decoy of the same shape.
    find: db.prepare<[string], TokenRow & { found: 0 | 1 }>(
      `SELECT coalesce(t.name, '') AS name, k.lookup AS lookup,
              coalesce(t.hash, zeroblob(32)) AS hash, coalesce(t.kind, 'read-only') AS kind,
              coalesce(t.created_at, 0) AS created_at, t.name IS NOT NULL AS found
       FROM (SELECT ? AS lookup) AS k LEFT JOIN tokens AS t ON t.lookup = k.lookup`,
    ),
    any: db.prepare<[], 1>('SELECT 1 FROM tokens LIMIT 1').pluck(),
  };
}

function tokenRow(token: StoredToken): TokenRow {
  return {
    name: token.name,
    lookup: token.lookup,
    hash: token.hash,
    kind: token.kind,
    created_at: token.createdAt,
  };
}

function tokenInfo(row: TokenRow): TokenInfo {
  return { name: row.name, kind: row.kind, createdAt: row.created_at };
}

function guard<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && UNAVAILABLE.test(code)) {
      throw new StoreUnavailableError(`sqlite: ${(error as Error).message}`, { cause: error });
    }
    throw error;
  }
}
