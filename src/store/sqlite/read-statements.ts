import type Database from 'better-sqlite3';
import type { TermFilter } from '../../glossary/filters.ts';
import { foldCase } from '../../glossary/fold-case.ts';
import type { SortKey } from '../../glossary/term.ts';
import type { LiveName } from '../term-names.ts';
import { ftsQuery } from './fts-query.ts';
import {
  drivingSeq,
  fromWhere,
  INDEX_CANDIDATES,
  type IndexedWords,
  keepCurrent,
  ORDERS,
  ordering,
  type Plan,
  type PlanMemory,
  PREFIX_WORDS,
  planKey,
  planParams,
  resolveWords,
} from './plan.ts';
import { TERM_COLUMNS, type TermById, type TermRow } from './term-rows.ts';
import { trigramMatch } from './trigram-match.ts';

/**
 * A LIMIT or OFFSET of a statement that may read an FTS5 index, written as an expression. A bare
 * parameter there is handed to the virtual table's planner (SQLite 3.38 and later), and the
 * statement then costs as if planned again at every run (better-sqlite3 binds every parameter
 * at each; the extra time grows with the statement's length, the plan stays the same). As
 * `@limit + 0` it stays the statement's own, and FTS5 had no use for it: at 100,000 terms a
 * one-typo `q`'s list took 13.5 µs against 36, a search's candidates 19-21 against 26-39, a
 * bounded count of words 14-17 against 24-31.
 */
const limitExpr = (param: string) => `${param} + 0`;

export interface Reads {
  /**
   * The earliest term of each id found, read in one read transaction: a statement alone opens
   * and closes one of its own, two locking system calls that cost more than the look-up. Each
   * is its stored fields, made into a `Term` by `termById` for each caller.
   */
  getMany(ids: readonly number[]): Map<number, TermById>;
  revision(): string;
  /**
   * `revision`, when the caller has just read it on this connection, saves reading it again.
   * `needed`: how many terms in the list's order the caller reads (offset and limit), if not
   * all of them.
   */
  plan(filter: TermFilter, memory: PlanMemory, revision?: string, needed?: number): Plan;
  /** One chunk of a list: the first (`after` unset) or the one after the row `after`. */
  chunk(
    p: Plan,
    sort: SortKey | 'created',
    page: { limit: number; offset: number; after?: TermRow | undefined },
  ): TermRow[];
  /** The plan's terms, or `atMost` of them if there are more. */
  count(p: Plan, atMost?: number): number;
  existing(ids: readonly number[]): number[];
  /** The names of live terms with one of these folds (rule 8). */
  namesWithFolds(folds: readonly string[]): LiveName[];
}

/** The read statements of one connection, prepared once. */
/**
 * The names of live terms with one of `folds` (repeats read once): what rule 8 is checked
 * against, by a preview, a write and an import alike.
 */
export function liveNamesWithFolds(db: Database.Database): (folds: Iterable<string>) => LiveName[] {
  const statement = db.prepare<[string], LiveName>(
    `SELECT n.fold, n.kind, t.id, n.seq FROM term_names n JOIN terms t ON t.seq = n.seq
     WHERE n.fold IN (SELECT value FROM json_each(?))`,
  );
  return (folds) => statement.all(JSON.stringify([...new Set(folds)]));
}

/**
 * The glossary's revision as the store tells it: the file's identity and its revision number,
 * so that a copy of the file, or another file, never answers a tag of this one. Read by every
 * read, and by a write inside its transaction to say what it moved the revision from and to.
 */
export function revisionText(db: Database.Database): Database.Statement<[], string> {
  return db.prepare<[], string>(`SELECT identity || '.' || revision FROM glossary_state`).pluck();
}

export function createReads(db: Database.Database): Reads {
  // Only the fields a term has (the id is known), as an array: making the other columns (and
  // their names) into JavaScript values would cost a quarter of a read.
  const selectById = db
    .prepare<[number], TermById>(
      'SELECT t.term, t.definition, t.category, t.see_also, t.aliases, t.avoid FROM terms t WHERE t.id = ? ORDER BY t.seq LIMIT 1',
    )
    .raw();
  const selectRevision = revisionText(db);
  const candidates = db
    .prepare<{ match: string; cap: number }, number>(
      `SELECT rowid FROM terms_fts WHERE terms_fts MATCH @match LIMIT ${limitExpr('@cap')}`,
    )
    .pluck();
  // The terms' count, nearly: every removal leaves a gap (for choosing a plan only).
  const lastSeq = db.prepare<[], number>('SELECT max(seq) FROM terms').pluck();
  const existing = db
    .prepare<[string], number>(
      'SELECT DISTINCT id FROM terms WHERE id IN (SELECT value FROM json_each(?))',
    )
    .pluck();
  const namesWithFolds = liveNamesWithFolds(db);
  const wordsFrom = db
    .prepare<{ from: string; to: string; cap: number }, string>(
      'SELECT word FROM indexed_words WHERE word >= @from AND word < @to ORDER BY word LIMIT @cap',
    )
    .pluck();
  const wordIndexed = db
    .prepare<[string], number>('SELECT 1 FROM indexed_words WHERE word = ?')
    .pluck();
  const indexedWords = (memory: PlanMemory): IndexedWords => ({
    has(word) {
      let known = memory.words.get(word);
      if (known === undefined) {
        known = wordIndexed.get(word) !== undefined;
        memory.words.set(word, known);
      }
      return known;
    },
    beginning(prefix) {
      let begun = memory.prefixes.get(prefix);
      if (begun === undefined) {
        const found = wordsFrom.all({
          from: prefix,
          to: `${prefix}\u{10FFFF}`,
          cap: PREFIX_WORDS + 1,
        });
        begun = found.length > PREFIX_WORDS ? null : found;
        memory.prefixes.set(prefix, begun);
      }
      return begun;
    },
  });
  const lists = new Map<string, Database.Statement<unknown[], TermRow>>();
  const counts = new Map<string, Database.Statement<unknown[], number>>();

  function listStatement(p: Plan, sort: SortKey | 'created', first: boolean) {
    const key = `${sort} ${planKey(p)} ${first}`;
    let statement = lists.get(key);
    if (!statement) {
      // Ordered by the driving index's seq, so it is read in order and stops early.
      const order = ordering(ORDERS[sort], drivingSeq(p));
      statement = db.prepare<unknown[], TermRow>(
        `SELECT ${TERM_COLUMNS} ${fromWhere(p, first ? [] : [order.after])}
         ORDER BY ${order.orderBy} LIMIT ${limitExpr('@limit')} OFFSET ${limitExpr('@offset')}`,
      );
      lists.set(key, statement);
    }
    return statement;
  }

  return {
    getMany: db.transaction((ids: readonly number[]) => {
      const found = new Map<number, TermById>();
      for (const id of ids) {
        const row = selectById.get(id);
        if (row) found.set(id, row);
      }
      return found;
    }),
    revision: () => selectRevision.get() ?? '',
    plan(filter, memory, revision, needed = Number.POSITIVE_INFINITY) {
      const range = filter.range && {
        from: foldCase(filter.range.from),
        before: filter.range.before,
      };
      // What memory holds is for words and patterns: a list without either needs no revision.
      if (filter.search || filter.text?.words) {
        keepCurrent(memory, revision ?? selectRevision.get() ?? '');
      }
      const words = filter.text?.words && resolveWords(filter.text.words, indexedWords(memory));
      if (words === false) return { none: true };
      const linksTo = filter.linksTo;
      const text = filter.text && {
        words: words && ftsQuery(words),
        nameIs: filter.text.name?.is,
        nameIsNot: filter.text.name?.isNot,
        nameStarts: filter.text.name?.startsWith,
        nameStartsNot: filter.text.name?.startsNotWith,
      };
      if (!filter.search) return { category: filter.category, ...range, ...text, linksTo };
      const search = foldCase(filter.search);
      // How many candidates a pattern has is not asked of the index again while the glossary
      // stays at the revision it was asked at (a search box sends the same patterns over and
      // over). The index serves a pattern with few enough, unless a scan in the list's order
      // should fill the page first: with the matches spread evenly, after about
      // needed × terms / candidates rows, against reading every candidate (a page of a pattern
      // one term in eight has would otherwise read an eighth of the glossary).
      const match = trigramMatch(search);
      let seqs: number[] | undefined;
      let found = memory.candidates.get(search);
      if (match && found === undefined) {
        seqs = candidates.all({ match, cap: INDEX_CANDIDATES + 1 });
        found = seqs.length;
        memory.candidates.set(search, found);
      }
      const scanFillsFirst = (many: number) =>
        many > 0 && Number.isFinite(needed) && (needed * (lastSeq.get() ?? 0)) / many < many;
      const selective =
        match !== undefined &&
        found !== undefined &&
        found <= INDEX_CANDIDATES &&
        !scanFillsFirst(found);
      if (selective && !seqs) seqs = candidates.all({ match, cap: INDEX_CANDIDATES + 1 });
      return {
        category: filter.category,
        search,
        seqs: selective ? JSON.stringify(seqs) : undefined,
        ...range,
        ...text,
        linksTo,
      };
    },
    chunk(p, sort, page) {
      if (p.none) return [];
      const statement = listStatement(p, sort, page.after === undefined);
      const after = page.after;
      return statement.all({
        ...planParams(p),
        limit: page.limit,
        offset: page.offset,
        seq: after?.seq ?? 0,
        key: after ? (sort === 'term' || sort === '-term' ? after.term_folded : after.id) : null,
      });
    },
    existing: (ids) => existing.all(JSON.stringify(ids)),
    namesWithFolds,
    count(p, atMost) {
      if (p.none || atMost === 0) return 0;
      const bounded = atMost !== undefined;
      const key = `${planKey(p)}${bounded ? ' bounded' : ''}`;
      let statement = counts.get(key);
      if (!statement) {
        // Words alone are counted in their index: it holds one row per term (rowid = seq).
        const wordsOnly = p.words !== undefined && planKey(p) === planKey({ words: p.words });
        // Links alone, in their own key: one range of it.
        const linksOnly = p.linksTo !== undefined && planKey(p) === planKey({ linksTo: 0 });
        const from = wordsOnly
          ? 'FROM terms_words WHERE terms_words MATCH @words'
          : linksOnly
            ? 'FROM term_links WHERE target = @linksTo'
            : fromWhere(p);
        const sql = bounded
          ? `SELECT count(*) FROM (SELECT 1 ${from} LIMIT ${limitExpr('@atMost')})`
          : `SELECT count(*) ${from}`;
        statement = db.prepare<unknown[], number>(sql).pluck();
        counts.set(key, statement);
      }
      return statement.get({ ...planParams(p), ...(bounded && { atMost }) }) ?? 0;
    },
  };
}
