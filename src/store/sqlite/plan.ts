import type { WordCondition } from '../../glossary/filters.ts';
import type { Category, SortKey } from '../../glossary/term.ts';

export interface Order {
  /** The sort key column; `seq` (creation order) breaks ties. */
  key?: string;
  descending?: boolean;
}

/**
 * Each order is a key plus `seq` as the tie-breaker (creation order), which makes keyset
 * pagination possible: the next chunk starts strictly after the last row of the previous one.
 */
export const ORDERS: Record<SortKey | 'created', Order> = {
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
  /** Only the terms whose `see_also` holds this id, found in `term_links`. */
  linksTo?: number | undefined;
}

/**
 * Past this many index candidates a pattern is broad, and the scan is the better plan: matches
 * are then usually dense, so a page fills after a short scan, and keyset chunks make a whole
 * list one pass.
 * Below it, the candidates are read from FTS5 once per request and every chunk, sort and count
 * works on that short list (FTS5 would re-read its doclists from the start for every chunk).
 */
export const INDEX_CANDIDATES = 20_000;

/** A prefix that begins at most this many words is asked as those words. */
export const PREFIX_WORDS = 64;

export function planKey(p: Plan): string {
  const range = p.from === undefined ? '' : p.before ? '<' : '>';
  const name = [p.nameIs, p.nameIsNot, p.nameStarts, p.nameStartsNot]
    .map((value) => (value === undefined ? '-' : '+'))
    .join('');
  const links = p.linksTo === undefined ? '' : 'l';
  return `${p.category ? 'c' : ''}${p.search ? (p.seqs ? 'f' : 's') : ''}${range}${p.words ? 'w' : ''}${name}${links}`;
}

/**
 * FROM and WHERE for a plan; every candidate of the trigram index is verified with `instr`.
 * With words, `terms_words` drives: it yields rows in rowid (= seq) order and stops as soon
 * as a page is full, however many terms match.
 */
export function fromWhere(p: Plan, extra: readonly string[] = []): string {
  const where = [...extra];
  if (p.seqs) where.unshift('t.seq IN (SELECT value FROM json_each(@seqs))');
  if (p.words) where.unshift('terms_words MATCH @words');
  // The linking terms are one range of `term_links`' key, in seq order: unless the words
  // drive, that range does, and a page in creation order stops once it is full.
  if (p.linksTo !== undefined) {
    where.unshift(
      p.words
        ? 't.seq IN (SELECT seq FROM term_links WHERE target = @linksTo)'
        : 'l.target = @linksTo',
    );
  }
  if (p.category) where.push('t.category = @category');
  if (p.search) where.push('instr(t.term_folded, @search) > 0');
  if (p.from !== undefined) where.push(`t.term_folded ${p.before ? '<' : '>='} @from`);
  // The keys of a term's accepted names: its name's (`t.name_key`) and its aliases' (rows of
  // `term_names`, read only for a term that has aliases). An exact key is looked up in the two
  // key indexes (few terms have it); the others are checked on each row the words condition
  // (or the exact key) found, so a page of a broad word still stops once it is full.
  const startsWith = (key: string, param: string) =>
    `substr(${key}, 1, length(${param})) = ${param}`;
  const aliasKey = (condition: string) =>
    `(t.aliases IS NOT NULL AND EXISTS (SELECT 1 FROM term_names n WHERE n.seq = t.seq AND n.kind = 'aliases' AND ${condition}))`;
  if (p.nameIs !== undefined) {
    where.push(
      `t.seq IN (SELECT seq FROM terms WHERE name_key = @nameIs UNION ALL SELECT seq FROM term_names WHERE key = @nameIs AND kind = 'aliases')`,
    );
  }
  if (p.nameIsNot !== undefined) {
    where.push(`t.name_key <> @nameIsNot AND NOT ${aliasKey('n.key = @nameIsNot')}`);
  }
  if (p.nameStarts !== undefined) {
    where.push(
      `(${startsWith('t.name_key', '@nameStarts')} OR ${aliasKey(startsWith('n.key', '@nameStarts'))})`,
    );
  }
  if (p.nameStartsNot !== undefined) {
    where.push(
      `NOT ${startsWith('t.name_key', '@nameStartsNot')} AND NOT ${aliasKey(startsWith('n.key', '@nameStartsNot'))}`,
    );
  }
  const from = p.words
    ? 'terms_words w JOIN terms t ON t.seq = w.rowid'
    : p.linksTo !== undefined
      ? 'term_links l JOIN terms t ON t.seq = l.seq'
      : 'terms t';
  return `FROM ${from}${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''}`;
}

/** The seq of the table that drives a plan's list: its order is creation order, read as is. */
export function drivingSeq(p: Plan): string {
  return p.words ? 'w.rowid' : p.linksTo !== undefined ? 'l.seq' : 't.seq';
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
    ...(p.linksTo !== undefined && { linksTo: p.linksTo }),
  };
}

/**
 * ORDER BY and the "after the last row" condition of a chunk. The condition is written as a
 * range on the key plus a tie rule, so SQLite seeks in the key's index instead of scanning.
 */
export function ordering(order: Order, seq: string): { orderBy: string; after: string } {
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
export function keepCurrent(memory: PlanMemory, revision: string): void {
  const big = memory.candidates.size + memory.words.size + memory.prefixes.size >= 10_000;
  if (memory.revision === revision && !big) return;
  memory.revision = revision;
  memory.candidates.clear();
  memory.words.clear();
  memory.prefixes.clear();
}

/** A word condition's words as the index knows them (see `resolveWords`). */
export interface IndexedWords {
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
