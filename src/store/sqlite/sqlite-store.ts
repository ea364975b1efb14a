import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { SqliteSynchronous } from '../../config.ts';
import { StoreUnavailableError } from '../../errors.ts';
import type { Category, Term } from '../../schemas/term.ts';
import { foldCase } from '../../text/fold-case.ts';
import type { ImportOutcome, TermFilter, TermStore } from '../term-store.ts';
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
  id: number;
  term: string;
  definition: string;
  category: Category;
  see_also: string;
}

const LIST_CHUNK = 500;
const COLUMNS = 'seq, id, term, definition, category, see_also';

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

  const listQueries = new Map<string, Database.Statement<unknown[], Row>>();
  function listQuery(filter: TermFilter) {
    const key = `${filter.category ? 'c' : ''}${filter.search ? 's' : ''}`;
    let statement = listQueries.get(key);
    if (!statement) {
      const where = ['seq > @after'];
      if (filter.category) where.push('category = @category');
      if (filter.search) where.push('instr(term_folded, @search) > 0');
      statement = db.prepare<unknown[], Row>(
        `SELECT ${COLUMNS} FROM terms WHERE ${where.join(' AND ')} ORDER BY seq LIMIT ${LIST_CHUNK}`,
      );
      listQueries.set(key, statement);
    }
    return statement;
  }

  return {
    backend: 'sqlite',
    async get(id) {
      const row = guard(() => selectById.get(id));
      return row && toTerm(row);
    },
    async *list(filter) {
      const statement = listQuery(filter);
      const params = {
        after: 0,
        ...(filter.category && { category: filter.category }),
        ...(filter.search && { search: foldCase(filter.search) }),
      };
      // Keyset pagination over `seq`: no cursor stays open between chunks, so a slow client
      // never holds the connection, and rows are never updated, so no chunk reads a half write.
      for (;;) {
        const rows = guard(() => statement.all(params));
        if (rows.length > 0) yield rows.map(toTerm);
        const last = rows.at(-1);
        if (!last || rows.length < LIST_CHUNK) return;
        params.after = last.seq;
      }
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
