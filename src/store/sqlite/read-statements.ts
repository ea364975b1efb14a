import type Database from 'better-sqlite3';
import type { TermFilter, WordCondition } from '../../glossary/filters.ts';
import { foldCase } from '../../glossary/fold-case.ts';
import type { Category, SortKey, Term } from '../../glossary/term.ts';
import { ftsQuery } from './fts-query.ts';
import { trigramMatch } from './trigram-match.ts';

/** A stored term as SQLite returns it. */
export interface TermRow {
  seq: number;
  id: number;
  term: string;
  term_folded: string;
  definition: string;
  category: Category;
  see_also: string;
  created_rev: number;
  created_at: number;
  created_by: string | null;
}

export const TERM_COLUMNS =
  't.seq, t.id, t.term, t.term_folded, t.definition, t.category, t.see_also, t.created_rev, t.created_at, t.created_by';

export function toTerm(row: TermRow): Term {
  return {
    id: row.id,
    term: row.term,
    definition: row.definition,
    category: row.category,
    see_also: JSON.parse(row.see_also) as number[],
  };
}

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
export interface Plan {
  category?: Category | undefined;
  search?: string | undefined;
  seqs?: string | undefined;
  /** Folded; with `before`, names strictly before it, else at or after it. */
  from?: string | undefined;
  before?: boolean | undefined;
  /** An FTS5 query over `terms_words` (fts-query.ts): the list is driven by it, in seq order. */
  words?: string | undefined;
  /** No live term has the words asked for: nothing matches, and no statement runs. */
  none?: boolean | undefined;
  nameIs?: string | undefined;
  nameIsNot?: string | undefined;
  nameStarts?: string | undefined;
  nameStartsNot?: string | undefined;
}

/**
 * Past this many index candidates a pattern is broad, and the scan is the better plan: matches
 * are then usually dense, so a page fills after a short scan, and keyset chunks make a whole
 * list one pass.
 * Below it, the candidates are read from FTS5 once per request and every chunk, sort and count
 * works on that short list (FTS5 would re-read its doclists from the start for every chunk).
 */
const INDEX_CANDIDATES = 20_000;

/** A prefix that begins at most this many words is asked as those words. */
const PREFIX_WORDS = 64;

function planKey(p: Plan): string {
  const range = p.from === undefined ? '' : p.before ? '<' : '>';
  const name = [p.nameIs, p.nameIsNot, p.nameStarts, p.nameStartsNot]
    .map((value) => (value === undefined ? '-' : '+'))
    .join('');
  return `${p.category ? 'c' : ''}${p.search ? (p.seqs ? 'f' : 's') : ''}${range}${p.words ? 'w' : ''}${name}`;
}

/**
 * FROM and WHERE for a plan; every candidate of the trigram index is verified with `instr`.
 * With words, `terms_words` drives: it yields rows in rowid (= seq) order and stops as soon
 * as a page is full, however many terms match.
 */
function fromWhere(p: Plan, extra: readonly string[] = []): string {
  const where = [...extra];
  if (p.seqs) where.unshift('t.seq IN (SELECT value FROM json_each(@seqs))');
  if (p.words) where.unshift('terms_words MATCH @words');
  if (p.category) where.push('t.category = @category');
  if (p.search) where.push('instr(t.term_folded, @search) > 0');
  if (p.from !== undefined) where.push(`t.term_folded ${p.before ? '<' : '>='} @from`);
  if (p.nameIs !== undefined) where.push('t.name_key = @nameIs');
  if (p.nameIsNot !== undefined) where.push('t.name_key <> @nameIsNot');
  if (p.nameStarts !== undefined) {
    where.push('substr(t.name_key, 1, length(@nameStarts)) = @nameStarts');
  }
  if (p.nameStartsNot !== undefined) {
    where.push('substr(t.name_key, 1, length(@nameStartsNot)) <> @nameStartsNot');
  }
  const from = p.words ? 'terms_words w JOIN terms t ON t.seq = w.rowid' : 'terms t';
  return `FROM ${from}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}`;
}

export function planParams(p: Plan): Record<string, unknown> {
  return {
    ...(p.category && { category: p.category }),
    ...(p.search && { search: p.search }),
    ...(p.seqs && { seqs: p.seqs }),
    ...(p.from !== undefined && { from: p.from }),
    ...(p.words && { words: p.words }),
    ...(p.nameIs !== undefined && { nameIs: p.nameIs }),
    ...(p.nameIsNot !== undefined && { nameIsNot: p.nameIsNot }),
    ...(p.nameStarts !== undefined && { nameStarts: p.nameStarts }),
    ...(p.nameStartsNot !== undefined && { nameStartsNot: p.nameStartsNot }),
  };
}

/**
 * ORDER BY and the "after the last row" condition of a chunk. The condition is written as a
 * range on the key plus a tie rule, so SQLite seeks in the key's index instead of scanning.
 */
function ordering(order: Order, seq: string): { orderBy: string; after: string } {
  if (!order.key) return { orderBy: seq, after: `${seq} > @seq` };
  const { key } = order;
  return order.descending
    ? {
        orderBy: `${key} DESC, ${seq}`,
        after: `${key} <= @key AND (${key} < @key OR ${seq} > @seq)`,
      }
    : { orderBy: `${key}, ${seq}`, after: `${key} >= @key AND (${key} > @key OR ${seq} > @seq)` };
}

/**
 * What every connection of one store shares, at a revision: how many candidates the trigram
 * index proposes for each pattern asked (at most INDEX_CANDIDATES + 1), and the indexed words
 * asked about (a word, whether a live term has it; a prefix, the words of live terms it
 * begins, or null when they are many). A `q` asks the same words at every level of its
 * ranking, and a search box the same patterns and prefixes over and over.
 */
export interface PlanMemory {
  revision: string;
  candidates: Map<string, number>;
  words: Map<string, boolean>;
  prefixes: Map<string, readonly string[] | null>;
}

export function planMemory(): PlanMemory {
  return { revision: '', candidates: new Map(), words: new Map(), prefixes: new Map() };
}

/** Forgets what `memory` knew when the glossary has moved on from it (or it grew too big). */
function keepCurrent(memory: PlanMemory, revision: string): void {
  const big = memory.candidates.size + memory.words.size + memory.prefixes.size >= 10_000;
  if (memory.revision === revision && !big) return;
  memory.revision = revision;
  memory.candidates.clear();
  memory.words.clear();
  memory.prefixes.clear();
}

/** A word condition's words as the index knows them (see `resolveWords`). */
interface IndexedWords {
  has(word: string): boolean;
  /** The words `prefix` begins, or null when they are more than PREFIX_WORDS. */
  beginning(prefix: string): readonly string[] | null;
}

/**
 * A word condition with every word looked up in `indexed_words`: words no live term has are left
 * out, a prefix that begins a few words becomes those words (FTS5 merges a prefix's doclists
 * in full before it can answer, so a page of a broad prefix read every match; a few whole
 * words are read lazily, in order, only as far as the page goes), and `false` where nothing
 * can match. A `q` with a misspelt word then asks nothing of the levels that need the word
 * as typed.
 */
export function resolveWords(condition: WordCondition, index: IndexedWords): WordCondition | false {
  if ('has' in condition) {
    const { prefix } = condition.has;
    const words = condition.has.words.filter((word) => index.has(word));
    const begun = prefix === undefined ? [] : index.beginning(prefix);
    if (begun === null) return { has: { in: condition.has.in, words, prefix } };
    const all = [...new Set([...words, ...begun])];
    return all.length === 0 ? false : { has: { in: condition.has.in, words: all } };
  }
  if ('not' in condition) {
    const inner = resolveWords(condition.not, index);
    return inner === false ? false : { not: inner };
  }
  if ('some' in condition) {
    const some = condition.some.flatMap((part) => {
      const resolved = resolveWords(part, index);
      return resolved === false ? [] : [resolved];
    });
    if (some.length === 0) return false;
    return some.length === 1 ? (some[0] as WordCondition) : { some };
  }
  const all: WordCondition[] = [];
  for (const part of condition.all) {
    // `not` of nothing is no condition at all; anything else that matches nothing, nothing.
    if ('not' in part) {
      const inner = resolveWords(part.not, index);
      if (inner !== false) all.push({ not: inner });
      continue;
    }
    const resolved = resolveWords(part, index);
    if (resolved === false) return false;
    all.push(resolved);
  }
  return all.length === 1 && !('not' in (all[0] as WordCondition))
    ? (all[0] as WordCondition)
    : { all };
}

/** A term as read by id: term, definition, category, see_also (JSON). */
export type TermById = [string, string, Category, string];

/** A term of its own for each caller: callers asking for one id in one turn share the row. */
export function termById(id: number, [term, definition, category, seeAlso]: TermById): Term {
  return { id, term, definition, category, see_also: JSON.parse(seeAlso) as number[] };
}

export interface Reads {
  /**
   * The earliest term of each id found, read in one read transaction: a statement alone opens
   * and closes one of its own, two locking system calls that cost more than the look-up. Each
   * is its four stored fields, made into a `Term` by `termById` for each caller.
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
}

/** The read statements of one connection, prepared once. */
export function createReads(db: Database.Database): Reads {
  // Only the fields a term has (the id is known), as an array: making the other columns (and
  // their names) into JavaScript values cost a quarter of a read (4.9 against 3.3 µs a read).
  const selectById = db
    .prepare<[number], TermById>(
      'SELECT t.term, t.definition, t.category, t.see_also FROM terms t WHERE t.id = ? ORDER BY t.seq LIMIT 1',
    )
    .raw();
  const selectRevision = db
    .prepare<[], string>(`SELECT identity || '.' || revision FROM glossary_state`)
    .pluck();
  const candidates = db
    .prepare<{ match: string; cap: number }, number>(
      'SELECT rowid FROM terms_fts WHERE terms_fts MATCH @match LIMIT @cap',
    )
    .pluck();
  // The terms' count, nearly: every removal leaves a gap (for choosing a plan only).
  const lastSeq = db.prepare<[], number>('SELECT max(seq) FROM terms').pluck();
  const existing = db
    .prepare<[string], number>(
      'SELECT DISTINCT id FROM terms WHERE id IN (SELECT value FROM json_each(?))',
    )
    .pluck();
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
      // Ordered by the index's rowid when it drives, so FTS5 reads in order and stops early.
      const order = ordering(ORDERS[sort], p.words ? 'w.rowid' : 't.seq');
      statement = db.prepare<unknown[], TermRow>(
        `SELECT ${TERM_COLUMNS} ${fromWhere(p, first ? [] : [order.after])}
         ORDER BY ${order.orderBy} LIMIT @limit OFFSET @offset`,
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
      const text = filter.text && {
        words: words && ftsQuery(words),
        nameIs: filter.text.name?.is,
        nameIsNot: filter.text.name?.isNot,
        nameStarts: filter.text.name?.startsWith,
        nameStartsNot: filter.text.name?.startsNotWith,
      };
      if (!filter.search) return { category: filter.category, ...range, ...text };
      const search = foldCase(filter.search);
      // How many candidates a pattern has is not asked of the index again while the glossary
      // stays at the revision it was asked at (a search box sends the same patterns over and
      // over). The index serves a pattern with few enough, unless a scan in the list's order
      // should fill the page first: with the matches spread evenly, after about
      // needed × terms / candidates rows, against reading every candidate (a page of a pattern
      // one term in eight has, at 100,000 terms, read 12,500 candidates: 309 req/s).
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
    count(p, atMost) {
      if (p.none || atMost === 0) return 0;
      const bounded = atMost !== undefined;
      const key = `${planKey(p)}${bounded ? ' bounded' : ''}`;
      let statement = counts.get(key);
      if (!statement) {
        // Words alone are counted in their index: it holds one row per term (rowid = seq).
        const wordsOnly = p.words !== undefined && planKey(p) === planKey({ words: p.words });
        const from = wordsOnly ? 'FROM terms_words WHERE terms_words MATCH @words' : fromWhere(p);
        const sql = bounded
          ? `SELECT count(*) FROM (SELECT 1 ${from} LIMIT @atMost)`
          : `SELECT count(*) ${from}`;
        statement = db.prepare<unknown[], number>(sql).pluck();
        counts.set(key, statement);
      }
      return statement.get({ ...planParams(p), ...(bounded && { atMost }) }) ?? 0;
    },
  };
}
