import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { foldCase } from '../../glossary/fold-case.ts';
import type { Category, SortKey, Term } from '../../glossary/term.ts';
import { SchemaError, StoreUnavailableError } from '../errors.ts';
import type { ImportOutcome, ListOptions, TermFilter, TermStore } from '../term-store.ts';
import { inspectExistingFile } from './inspect-file.ts';
import { APPLICATION_ID, checkOwnFile, migrate } from './migrations.ts';
import { trigramMatch } from './trigram-match.ts';

/**
 * The embedded store: one SQLite file in WAL mode. With `synchronous=FULL` (the default) a
 * commit returns only after the WAL is fsynced, so an acknowledged write survives a crash and
 * a power loss. Writers take the lock up front (`BEGIN IMMEDIATE`), so several processes on
 * one file serialise instead of failing half-way.
 */

/** How SQLite syncs a commit: `full` and `extra` survive a power loss, `normal` a crash. */
export const SQLITE_SYNCHRONOUS = ['full', 'extra', 'normal'] as const;
export type SqliteSynchronous = (typeof SQLITE_SYNCHRONOUS)[number];

export interface SqliteStoreOptions {
  synchronous?: SqliteSynchronous;
  busyTimeoutMs?: number;
}

interface Row {
  seq: number;
  term_folded: string;
  id: number;
  term: string;
  definition: string;
  category: Category;
  see_also: string;
}

const LIST_CHUNK = 500;
const COLUMNS = 't.seq, t.id, t.term, t.term_folded, t.definition, t.category, t.see_also';

interface Order {
  /** The sort key column; `seq` (creation order) breaks ties. */
  key?: string;
  descending?: boolean;
}

/**
 * Each order is a key plus `seq` as the tie-breaker (creation order), which makes keyset
 * pagination possible: the next chunk starts strictly after the last row of the previous one.
 */
const ORDERS: Record<SortKey | 'created', Order> = {
  created: {},
  term: { key: 't.term_folded' },
  '-term': { key: 't.term_folded', descending: true },
  id: { key: 't.id' },
  '-id': { key: 't.id', descending: true },
};

/**
 * How a filter is read: through the trigram index (`seqs` holds the rows it proposes, as a JSON
 * array) or by a scan of `terms`, possibly along the category or term index. Short patterns,
 * patterns with no usable trigram and broad patterns scan.
 */
interface Plan {
  category?: Category | undefined;
  search?: string | undefined;
  seqs?: string | undefined;
}

/**
 * Past this many index candidates a pattern is broad, and the scan is the better plan: matches
 * are then usually dense, so a page fills after a short scan, and keyset chunks make a whole
 * list one pass.
 * Below it, the candidates are read from FTS5 once per request and every chunk, sort and count
 * works on that short list (FTS5 would re-read its doclists from the start for every chunk).
 */
const INDEX_CANDIDATES = 20_000;

function planKey(p: Plan): string {
  return `${p.category ? 'c' : ''}${p.search ? (p.seqs ? 'f' : 's') : ''}`;
}

/** FROM and WHERE for a plan; every candidate of the index is verified with `instr`. */
function fromWhere(p: Plan, extra: readonly string[] = []): string {
  const where = [...extra];
  if (p.seqs) where.unshift('t.seq IN (SELECT value FROM json_each(@seqs))');
  if (p.category) where.push('t.category = @category');
  if (p.search) where.push('instr(t.term_folded, @search) > 0');
  return `FROM terms t${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}`;
}

function planParams(p: Plan): Record<string, unknown> {
  return {
    ...(p.category && { category: p.category }),
    ...(p.search && { search: p.search }),
    ...(p.seqs && { seqs: p.seqs }),
  };
}

/**
 * ORDER BY and the "after the last row" condition of a chunk. The condition is written as a
 * range on the key plus a tie rule, so SQLite seeks in the key's index instead of scanning.
 */
function ordering(order: Order): { orderBy: string; after: string } {
  if (!order.key) return { orderBy: 't.seq', after: 't.seq > @seq' };
  const { key } = order;
  return order.descending
    ? {
        orderBy: `${key} DESC, t.seq`,
        after: `${key} <= @key AND (${key} < @key OR t.seq > @seq)`,
      }
    : { orderBy: `${key}, t.seq`, after: `${key} >= @key AND (${key} > @key OR t.seq > @seq)` };
}

/** SQLite result codes that mean "the storage cannot do this now", not "the request is bad". */
const UNAVAILABLE = /^SQLITE_(FULL|READONLY|IOERR|BUSY|LOCKED|CANTOPEN|NOTADB|CORRUPT|PROTOCOL)/;

export function openSqliteStore(file: string, options: SqliteStoreOptions = {}): TermStore {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  inspectExistingFile(file);
  const db = new Database(file);
  try {
    // First, so that even switching to WAL waits for another process instead of failing.
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    // Before anything writes (switching to WAL rewrites the header): a foreign or newer file
    // is refused untouched.
    checkOwnFile(db, file);
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${options.synchronous ?? 'full'}`);
    migrate(db, file);
    return sqliteStore(db, startupWriteFailure(db, file));
  } catch (error) {
    db.close();
    // SQLite's own messages ("file is not a database") do not say which file.
    if (error instanceof SchemaError) throw error;
    throw new Error(`${file}: ${(error as Error).message}`, { cause: error });
  }
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

function sqliteStore(db: Database.Database, startFailure: StoreUnavailableError | null): TermStore {
  const selectById = db.prepare<[number], Row>(
    `SELECT ${COLUMNS} FROM terms t WHERE t.id = ? ORDER BY t.seq LIMIT 1`,
  );
  const exists = db.prepare<[number], 1>('SELECT 1 FROM terms WHERE id = ? LIMIT 1').pluck();
  const insert = db.prepare<[number, string, string, string, string, string]>(
    `INSERT INTO terms (id, term, term_folded, definition, category, see_also)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const index = db.prepare<[number | bigint, string]>(
    'INSERT INTO terms_fts (rowid, term_folded) VALUES (?, ?)',
  );
  /** Inside a transaction: the row and its search index entry commit together. */
  const insertTerm = (term: Term) => {
    const folded = foldCase(term.term);
    const { lastInsertRowid } = insert.run(
      term.id,
      term.term,
      folded,
      term.definition,
      term.category,
      JSON.stringify(term.see_also),
    );
    index.run(lastInsertRowid, folded);
  };
  const createOne = db.transaction(insertTerm);
  const importAll = db.transaction((terms: readonly Term[]): ImportOutcome[] =>
    terms.map((term) => {
      if (exists.get(term.id) !== undefined) return 'exists';
      insertTerm(term);
      return 'created';
    }),
  );

  // A write that failed for a storage reason (disk full, read-only file, I/O error) is
  // remembered until a write succeeds again, so readiness reports it instead of a read that
  // still works. While it is remembered, `check` probes with a real committed write.
  let writeFailure: StoreUnavailableError | null = startFailure;
  function write<T>(work: () => T): T {
    try {
      const result = guard(work);
      writeFailure = null;
      return result;
    } catch (error) {
      if (error instanceof StoreUnavailableError) writeFailure = error;
      throw error;
    }
  }
  const probe = db.transaction(() => probeWrite(db));
  const readable = db.prepare('SELECT count(*) FROM (SELECT 1 FROM terms LIMIT 1)');

  const statements = new Map<string, Database.Statement<unknown[], Row>>();
  function listStatement(p: Plan, sort: SortKey | 'created', first: boolean) {
    const key = `${sort} ${planKey(p)} ${first}`;
    let statement = statements.get(key);
    if (!statement) {
      const order = ordering(ORDERS[sort]);
      statement = db.prepare<unknown[], Row>(
        `SELECT ${COLUMNS} ${fromWhere(p, first ? [] : [order.after])}
         ORDER BY ${order.orderBy} LIMIT @limit OFFSET @offset`,
      );
      statements.set(key, statement);
    }
    return statement;
  }
  const counts = new Map<string, Database.Statement<unknown[], number>>();
  function countStatement(p: Plan) {
    const key = planKey(p);
    let statement = counts.get(key);
    if (!statement) {
      statement = db.prepare<unknown[], number>(`SELECT count(*) ${fromWhere(p)}`).pluck();
      counts.set(key, statement);
    }
    return statement;
  }
  const candidates = db
    .prepare<{ match: string; cap: number }, number>(
      'SELECT rowid FROM terms_fts WHERE terms_fts MATCH @match LIMIT @cap',
    )
    .pluck();
  // Terms are only ever added, so a pattern found broad stays broad: it is not asked of the
  // index again (a search box sends the same short, broad patterns over and over).
  const broad = new Set<string>();
  function plan(filter: TermFilter): Plan {
    if (!filter.search) return { category: filter.category };
    const search = foldCase(filter.search);
    const match = broad.has(search) ? undefined : trigramMatch(search);
    const seqs = match && candidates.all({ match, cap: INDEX_CANDIDATES + 1 });
    if (seqs && seqs.length > INDEX_CANDIDATES) {
      if (broad.size >= 1000) broad.clear();
      broad.add(search);
    }
    const selective = seqs !== undefined && seqs.length <= INDEX_CANDIDATES;
    return {
      category: filter.category,
      search,
      seqs: selective ? JSON.stringify(seqs) : undefined,
    };
  }

  const latestSeq = db
    .prepare<[], number>(`SELECT seq FROM sqlite_sequence WHERE name = 'terms'`)
    .pluck();
  const revision = () => latestSeq.get() ?? 0;
  // Counting a large filter reads its whole index; terms are only ever added, so a count
  // stays right as long as the revision has not moved (also when other processes write).
  const countCache = new Map<string, { revision: number; count: number }>();

  return {
    backend: 'sqlite',
    async get(id) {
      const row = guard(() => selectById.get(id));
      return row && toTerm(row);
    },
    async *list(filter, options: ListOptions = {}) {
      const sort = options.sort ?? 'created';
      const p = guard(() => plan(filter));
      let remaining = options.limit ?? Number.POSITIVE_INFINITY;
      const params: Record<string, unknown> = {
        ...planParams(p),
        offset: options.offset ?? 0,
        seq: 0,
        key: null,
      };
      // Keyset pagination: no cursor stays open between chunks, so a slow client never holds
      // the connection, and terms are never updated, so no chunk reads a half write.
      for (let first = true; remaining > 0; first = false) {
        params.limit = Math.min(LIST_CHUNK, remaining);
        const statement = listStatement(p, sort, first);
        const rows = guard(() => statement.all(params));
        if (rows.length > 0) yield rows.map(toTerm);
        const last = rows.at(-1);
        if (!last || rows.length < (params.limit as number)) return;
        remaining -= rows.length;
        params.offset = 0;
        params.seq = last.seq;
        params.key = sort === 'term' || sort === '-term' ? last.term_folded : last.id;
      }
    },
    async count(filter) {
      const cacheKey = `${filter.category ?? ''}\u0000${filter.search ?? ''}`;
      return guard(() => {
        const now = revision();
        const cached = countCache.get(cacheKey);
        if (cached?.revision === now) return cached.count;
        const p = plan(filter);
        const count = countStatement(p).get(planParams(p)) ?? 0;
        if (countCache.size >= 256) countCache.clear();
        countCache.set(cacheKey, { revision: now, count });
        return count;
      });
    },
    async revision() {
      return guard(revision);
    },
    async create(term) {
      write(() => createOne.immediate(term));
    },
    async importMany(terms) {
      return write(() => importAll.immediate(terms));
    },
    async check() {
      guard(() => readable.get());
      if (writeFailure) write(() => probe.immediate());
    },
    async close() {
      if (db.open) db.close();
    },
  };
}

function toTerm(row: Row): Term {
  return {
    id: row.id,
    term: row.term,
    definition: row.definition,
    category: row.category,
    see_also: JSON.parse(row.see_also) as number[],
  };
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
