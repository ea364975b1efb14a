import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { SqliteSynchronous } from '../../config.ts';
import { StoreUnavailableError } from '../../errors.ts';
import type { Category, Term } from '../../schemas/term.ts';
import { foldCase } from '../../text/fold-case.ts';
import type { ImportOutcome, ListOptions, SortKey, TermFilter, TermStore } from '../term-store.ts';
import { checkOwnFile, migrate, SchemaError } from './migrations.ts';

/**
 * The embedded store: one SQLite file in WAL mode. With `synchronous=FULL` (the default) a
 * commit returns only after the WAL is fsynced, so an acknowledged write survives a crash and
 * a power loss. Writers take the lock up front (`BEGIN IMMEDIATE`), so several processes on
 * one file serialise instead of failing half-way.
 */

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
const COLUMNS = 'seq, id, term, term_folded, definition, category, see_also';

/**
 * Each order is a key plus `seq` as the tie-breaker (creation order), which makes keyset
 * pagination possible: the next chunk starts strictly after the last row of the previous one.
 */
const ORDERS: Record<SortKey | 'created', { orderBy: string; after: string }> = {
  created: { orderBy: 'seq', after: 'seq > @seq' },
  term: {
    orderBy: 'term_folded, seq',
    after: '(term_folded > @key OR (term_folded = @key AND seq > @seq))',
  },
  '-term': {
    orderBy: 'term_folded DESC, seq',
    after: '(term_folded < @key OR (term_folded = @key AND seq > @seq))',
  },
  id: { orderBy: 'id, seq', after: '(id > @key OR (id = @key AND seq > @seq))' },
  '-id': { orderBy: 'id DESC, seq', after: '(id < @key OR (id = @key AND seq > @seq))' },
};

/** SQLite result codes that mean "the storage cannot do this now", not "the request is bad". */
const UNAVAILABLE = /^SQLITE_(FULL|READONLY|IOERR|BUSY|LOCKED|CANTOPEN|NOTADB|CORRUPT|PROTOCOL)/;

export function openSqliteStore(file: string, options: SqliteStoreOptions = {}): TermStore {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  try {
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    // Before anything writes (switching to WAL rewrites the header): a foreign or newer file
    // is refused untouched.
    checkOwnFile(db, file);
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${options.synchronous ?? 'full'}`);
    migrate(db, file);
  } catch (error) {
    db.close();
    // SQLite's own messages ("file is not a database") do not say which file.
    if (error instanceof SchemaError) throw error;
    throw new Error(`${file}: ${(error as Error).message}`, { cause: error });
  }
  return sqliteStore(db);
}

function sqliteStore(db: Database.Database): TermStore {
  const selectById = db.prepare<[number], Row>(
    `SELECT ${COLUMNS} FROM terms WHERE id = ? ORDER BY seq LIMIT 1`,
  );
  const exists = db.prepare<[number], 1>('SELECT 1 FROM terms WHERE id = ? LIMIT 1').pluck();
  const insert = db.prepare<[number, string, string, string, string, string]>(
    `INSERT INTO terms (id, term, term_folded, definition, category, see_also)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const insertTerm = (term: Term) =>
    insert.run(
      term.id,
      term.term,
      foldCase(term.term),
      term.definition,
      term.category,
      JSON.stringify(term.see_also),
    );
  const importAll = db.transaction((terms: readonly Term[]): ImportOutcome[] =>
    terms.map((term) => {
      if (exists.get(term.id) !== undefined) return 'exists';
      insertTerm(term);
      return 'created';
    }),
  );

  const statements = new Map<string, Database.Statement<unknown[], Row>>();
  function listStatement(filter: TermFilter, sort: SortKey | 'created', first: boolean) {
    const key = `${sort} ${filter.category ? 'c' : ''}${filter.search ? 's' : ''} ${first}`;
    let statement = statements.get(key);
    if (!statement) {
      const order = ORDERS[sort];
      const where = [...filterClauses(filter), ...(first ? [] : [order.after])];
      statement = db.prepare<unknown[], Row>(
        `SELECT ${COLUMNS} FROM terms ${whereSql(where)}
         ORDER BY ${order.orderBy} LIMIT @limit OFFSET @offset`,
      );
      statements.set(key, statement);
    }
    return statement;
  }
  const counts = new Map<string, Database.Statement<unknown[], number>>();
  function countStatement(filter: TermFilter) {
    const key = `${filter.category ? 'c' : ''}${filter.search ? 's' : ''}`;
    let statement = counts.get(key);
    if (!statement) {
      statement = db
        .prepare<unknown[], number>(`SELECT count(*) FROM terms ${whereSql(filterClauses(filter))}`)
        .pluck();
      counts.set(key, statement);
    }
    return statement;
  }
  const latestSeq = db
    .prepare<[], number>(`SELECT seq FROM sqlite_sequence WHERE name = 'terms'`)
    .pluck();

  return {
    backend: 'sqlite',
    async get(id) {
      const row = guard(() => selectById.get(id));
      return row && toTerm(row);
    },
    async *list(filter, options: ListOptions = {}) {
      const sort = options.sort ?? 'created';
      let remaining = options.limit ?? Number.POSITIVE_INFINITY;
      const params: Record<string, unknown> = {
        ...filterParams(filter),
        offset: options.offset ?? 0,
        seq: 0,
        key: null,
      };
      // Keyset pagination: no cursor stays open between chunks, so a slow client never holds
      // the connection, and terms are never updated, so no chunk reads a half write.
      for (let first = true; remaining > 0; first = false) {
        params.limit = Math.min(LIST_CHUNK, remaining);
        const statement = listStatement(filter, sort, first);
        const rows = guard(() => statement.all(params));
        if (rows.length > 0) yield rows.map(toTerm);
        const last = rows.at(-1);
        if (!last || rows.length < LIST_CHUNK) return;
        remaining -= rows.length;
        params.offset = 0;
        params.seq = last.seq;
        params.key = sort === 'term' || sort === '-term' ? last.term_folded : last.id;
      }
    },
    async count(filter) {
      return guard(() => countStatement(filter).get(filterParams(filter)) ?? 0);
    },
    async revision() {
      return guard(() => latestSeq.get() ?? 0);
    },
    async create(term) {
      guard(() => insertTerm(term));
    },
    async importMany(terms) {
      return guard(() => importAll.immediate(terms));
    },
    async check() {
      guard(() => db.prepare('SELECT count(*) FROM (SELECT 1 FROM terms LIMIT 1)').get());
    },
    async close() {
      if (db.open) db.close();
    },
  };
}

function filterClauses(filter: TermFilter): string[] {
  const where: string[] = [];
  if (filter.category) where.push('category = @category');
  if (filter.search) where.push('instr(term_folded, @search) > 0');
  return where;
}

function filterParams(filter: TermFilter): Record<string, unknown> {
  return {
    ...(filter.category && { category: filter.category }),
    ...(filter.search && { search: foldCase(filter.search) }),
  };
}

function whereSql(clauses: readonly string[]): string {
  return clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : '';
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
