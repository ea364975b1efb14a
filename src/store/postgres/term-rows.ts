import type {
  ListOptions,
  TermFilter,
  TextFilter,
  WordCondition,
  WordsIn,
} from '../../glossary/filters.ts';
import { foldCase } from '../../glossary/fold-case.ts';
import type { Category, SortKey, Term } from '../../glossary/term.ts';
import { nameKey, wordsOf } from '../../glossary/words.ts';
import { nameRows, otherWords, withOtherNames } from '../term-names.ts';
import { someTrigrams } from '../trigrams.ts';
import { decodeNul, encodeNul } from './nul-text.ts';

/** Terms as rows and query parameters, and the SQL of a list. */

export interface Row {
  id: number;
  term: string;
  definition: string;
  category: Category;
  see_also: number[];
  /** Each entry NUL-encoded (nul-text.ts: jsonb cannot hold U+0000); null when none. */
  aliases: string[] | null;
  avoid: string[] | null;
}

export const COLUMNS = 'id, term, definition, category, see_also, aliases, avoid';

/** Each order is a key plus `seq` (creation order) as the tie-breaker, as in SQLite. */
const ORDER_BY: Record<SortKey | 'created', string> = {
  created: 'seq',
  term: 'term_folded, seq',
  '-term': 'term_folded DESC, seq',
  id: 'id, seq',
  '-id': 'id DESC, seq',
};

/**
 * How a filtered page is read. `walk`: the filter's conditions are written so that no index but
 * the order's serves them; the planner then walks the terms in order and stops when the page
 * is full, which beats reading every match through an index when matches are many. `index`:
 * the matches are gathered first (a materialized CTE, which the planner cannot fold into the
 * ordered walk) and then sorted, which is right when they are few: PostgreSQL's estimate for a
 * word it has no statistics on is a flat 2% of the terms, and for a word no term has it would
 * otherwise walk the whole table instead of reading the few through the word index.
 * `planner`: the planner chooses.
 */
export type ReadPlan = 'walk' | 'index' | 'planner';

/**
 * The SQL of a list, read as `plan` says; `columns` are what it answers of each term. Its
 * parameters are appended to `values` (a statement it is part of may have some before).
 */
export function listQuery(
  filter: TermFilter,
  options: ListOptions,
  plan: ReadPlan = 'planner',
  columns = COLUMNS,
  values: unknown[] = [],
): { text: string; values: unknown[] } {
  const { where } = filterSql(filter, plan === 'walk', values);
  const order = ORDER_BY[options.sort ?? 'created'];
  let text =
    plan === 'index'
      ? `WITH matches AS MATERIALIZED (SELECT seq, term_folded, ${COLUMNS} FROM terms ${where})
         SELECT ${columns} FROM matches ORDER BY ${order}`
      : `SELECT ${columns} FROM terms ${where} ORDER BY ${order}`;
  if (options.limit !== undefined) {
    values.push(options.limit);
    text += ` LIMIT $${values.length}`;
  }
  if (options.offset) {
    values.push(options.offset);
    text += ` OFFSET $${values.length}`;
  }
  return { text, values };
}

/**
 * A literal, case-insensitive substring: both sides folded with `foldCase` (as SQLite does), the
 * pattern's LIKE metacharacters escaped. The trigram index serves patterns of 3 or more
 * characters; shorter ones are answered by a scan, with the same results.
 */
export function filterSql(
  filter: TermFilter,
  walk = false,
  values: unknown[] = [],
): { where: string; values: unknown[] } {
  const clauses = filterClauses(filter, values, walk);
  return { where: clauses.length > 0 ? `WHERE ${clauses.join(' AND ')}` : '', values };
}

/** The conditions of a filter, their parameters appended to `values`. */
export function filterClauses(filter: TermFilter, values: unknown[], walk = false): string[] {
  const clauses: string[] = [];
  if (filter.category) {
    values.push(filter.category);
    clauses.push(`category = $${values.length}`);
  }
  if (filter.search) {
    const folded = foldCase(filter.search);
    values.push(`%${escapeLike(encodeNul(folded))}%`);
    const whole = `$${values.length}`;
    // `textlike` is LIKE's function, which the trigram index does not serve (see `walk`).
    if (walk) {
      clauses.push(`textlike(term_folded, ${whole})`);
    } else if (SPLIT_PATTERN.test(folded)) {
      // The index is asked for a few of the pattern's trigrams, not all (`someTrigrams`), and
      // the whole pattern is checked on what it finds, which halves a selective pattern's
      // cost (docs/performance.md). Only for letters and digits of ASCII, whose trigrams
      // pg_trgm makes exactly as written (it splits at other characters, and a piece without
      // a trigram would make the index read every entry). The price: the planner multiplies
      // the pieces' frequencies, so it thinks a broad pattern rare, and an unpaged list of a
      // broad pattern is read more slowly (pages walk, as before; see `ReadPlan`).
      for (const trigram of someTrigrams(folded)) {
        values.push(`%${trigram}%`);
        clauses.push(`term_folded LIKE $${values.length}`);
      }
      clauses.push(`textlike(term_folded, ${whole})`);
    } else {
      clauses.push(`term_folded LIKE ${whole}`);
    }
  }
  if (filter.range) {
    values.push(encodeNul(foldCase(filter.range.from)));
    clauses.push(`term_folded ${filter.range.before ? '<' : '>='} $${values.length}`);
  }
  if (filter.linksTo !== undefined) {
    values.push(JSON.stringify([filter.linksTo]));
    // Through the GIN index of `see_also`; walking, the function form, which no index serves.
    clauses.push(
      walk
        ? `jsonb_contains(see_also, $${values.length}::jsonb)`
        : `see_also @> $${values.length}::jsonb`,
    );
  }
  const text = filter.text;
  if (text?.words) clauses.push(wordSql(text.words, values, walk));
  const name = text?.name;
  const param = (value: string) => {
    values.push(value);
    return `$${values.length}`;
  };
  // The keys of a term's accepted names: its name's (`name_words`) and its aliases'
  // (`ALIAS_KEYS`), both in the row itself, so the conditions hold on `term_changes` too.
  // Letters, digits and spaces only: no LIKE metacharacter to escape. An exact key is found
  // through the name's btree index and the aliases' GIN index; "starts with" is checked on the
  // rows a words condition found.
  const aliasKeyLike = (value: string) =>
    `EXISTS (SELECT FROM unnest(${ALIAS_KEYS}) AS k (key) WHERE k.key LIKE ${value})`;
  if (name?.is !== undefined) {
    const value = param(name.is);
    clauses.push(`(name_words = ${value} OR ${ALIAS_KEYS} @> ARRAY[${value}::text])`);
  }
  if (name?.isNot !== undefined) {
    const value = param(name.isNot);
    clauses.push(`(name_words <> ${value} AND NOT ${ALIAS_KEYS} @> ARRAY[${value}::text])`);
  }
  if (name?.startsWith !== undefined) {
    const value = param(`${name.startsWith}%`);
    clauses.push(`(name_words LIKE ${value} OR ${aliasKeyLike(value)})`);
  }
  if (name?.startsNotWith !== undefined) {
    const value = param(`${name.startsNotWith}%`);
    clauses.push(`(name_words NOT LIKE ${value} AND NOT ${aliasKeyLike(value)})`);
  }
  return clauses;
}

/**
 * The terms matching `filter` and one of `levels`, whole, with the level each is in: one
 * statement, the word indexes read once for all levels (no ORDER BY: see `matching` in the
 * store). The rows come along because the heap pages are read anyway to recheck the matches,
 * and a second statement for the page's rows cost a query its own round trip and plan.
 */
export function rankedQuery(
  filter: TermFilter,
  levels: readonly TextFilter[],
  limit: number,
): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const base = filterClauses({ ...filter, text: undefined }, values);
  const conditions = levels.map((level) => {
    const clauses = filterClauses({ text: level }, values);
    return clauses.length > 0 ? `(${clauses.join(' AND ')})` : 'true';
  });
  const cases = conditions.map((condition, i) => `WHEN ${condition} THEN ${i}`).join(' ');
  const where = [...base, `(${conditions.join(' OR ')})`].join(' AND ');
  return {
    text: `SELECT seq, CASE ${cases} END AS level, ${COLUMNS} FROM terms WHERE ${where} LIMIT ${limit}`,
    values,
  };
}

/**
 * The first `limit` terms of each of `levels` (each read as its plan says), with the level's
 * place in the list: one statement where each level would be one. A ranking's first page is
 * read this way (see `firstOfLevels` in ranking-reads.ts).
 */
export function levelsQuery(
  filter: TermFilter,
  levels: readonly { level: TextFilter; plan: ReadPlan; place: number }[],
  limit: number,
): { text: string; values: unknown[] } {
  const values: unknown[] = [];
  const parts = levels.map(({ level, plan, place }) => {
    const part = listQuery(
      { ...filter, text: level },
      { limit },
      plan,
      `${place} AS level, seq, ${COLUMNS}`,
      values,
    );
    return `(${part.text})`;
  });
  return { text: parts.join(' UNION ALL '), values };
}

/** The lexemes of the name's words (the generated column `name_vec` up to migration 8). */
export const NAME_VECTOR = `array_to_tsvector(string_to_array(name_words, ' '))`;

/**
 * The words of a words text: words.ts's words joined by spaces, or, in `alias_words`, each
 * alias's key (its words joined by spaces) joined by line feeds, so that one column holds both
 * the aliases' words and each alias's key (`ALIAS_KEYS`).
 */
const WORDS_OF = (text: string) => `string_to_array(translate(${text}, E'\\n', ' '), ' ')`;

/**
 * The keys of a term's aliases (as `nameKey` makes them), from its own row: the conditions of
 * a filter are also evaluated on the rows of `term_changes` (kept-counts.ts), which have no
 * `term_names`. The expression of the GIN index `terms_alias_keys`, written exactly so.
 */
export const ALIAS_KEYS = `string_to_array(alias_words, E'\\n')`;

/** An alias's key separator in `alias_words` (see `WORDS_OF`). */
const ALIAS_SEPARATOR = '\n';

/** The lexemes of the words of name and aliases (the generated column `name_vec`, migration 8). */
export const NAMES_VECTOR = `array_to_tsvector(string_to_array(name_words, ' ') || ${WORDS_OF('alias_words')})`;

/** The lexemes of the words of the names to avoid (the generated column `avoid_vec`). */
export const AVOID_VECTOR = `array_to_tsvector(string_to_array(avoid_words, ' '))`;

/**
 * The lexemes of several words texts: `all_vec` is made of those of name, aliases, definition
 * and names to avoid (up to migration 8, of name and definition).
 */
export function ALL_VECTOR(...texts: string[]): string {
  return `array_to_tsvector(${texts.map(WORDS_OF).join(' || ')})`;
}

/** The word vector each place of a word is (filters.ts, `WordsIn`), each with a GIN index. */
const VECTORS: Record<WordsIn, string> = { name: 'name_vec', avoid: 'avoid_vec', any: 'all_vec' };

/**
 * A word condition as SQL over the word indexes: each `has` is a tsquery of quoted lexemes
 * (`'cafe' | 'clust':*`), taken as they are (no parser, no dictionary: the words are already
 * folded and split by words.ts, exactly as SQLite's `terms_words` holds them).
 */
function wordSql(condition: WordCondition, values: unknown[], walk: boolean): string {
  if ('has' in condition) {
    const { words, prefix } = condition.has;
    const lexemes = [...words.map((word) => `'${word}'`), ...(prefix ? [`'${prefix}':*`] : [])];
    if (lexemes.length === 0) throw new Error('a word condition without words');
    values.push(lexemes.join(' | '));
    const column = VECTORS[condition.has.in];
    // Walking in creation order, the word indexes must not be used: the function form of `@@`
    // is not indexable.
    return walk
      ? `ts_match_vq(${column}, $${values.length}::tsquery)`
      : `${column} @@ $${values.length}::tsquery`;
  }
  if ('not' in condition) return `NOT (${wordSql(condition.not, values, walk)})`;
  if ('some' in condition)
    return `(${condition.some.map((part) => wordSql(part, values, walk)).join(' OR ')})`;
  return `(${condition.all.map((part) => wordSql(part, values, walk)).join(' AND ')})`;
}

/** A folded pattern whose index look-up is split into a few trigrams (see `filterClauses`). */
const SPLIT_PATTERN = /^[a-z0-9]{6,}$/;

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

/**
 * A term's column values, in this order: id, term, term_folded, definition, category,
 * see_also, name_words, definition_words, aliases, avoid, alias_words, avoid_words (the
 * words from words.ts: letters, digits and single spaces only, so never a U+0000 to encode;
 * `name_words` is also the name's key for "exact name" and "starts with"; `aliases` and
 * `avoid` as JSON arrays of NUL-encoded text, or null when the term has none).
 */
export type TermValues = [
  number,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string | null,
  string | null,
  string,
  string,
];

const namesJson = (names: readonly string[] | undefined) =>
  names && names.length > 0 ? JSON.stringify(names.map(encodeNul)) : null;

export function termValues(term: Term): TermValues {
  const other = otherWords(term);
  return [
    term.id,
    encodeNul(term.term),
    encodeNul(foldCase(term.term)),
    encodeNul(term.definition),
    term.category,
    JSON.stringify(term.see_also),
    wordsOf(term.term).join(' '),
    wordsOf(term.definition).join(' '),
    namesJson(term.aliases),
    namesJson(term.avoid),
    (term.aliases ?? [])
      .map(nameKey)
      .filter((key) => key !== '')
      .join(ALIAS_SEPARATOR),
    other.avoid.join(' '),
  ];
}

/** The term's rows of `term_names` as three arrays (kind, fold NUL-encoded, key). */
export function nameColumns(term: Term): [string[], string[], string[]] {
  const rows = nameRows(term);
  return [rows.map((r) => r.kind), rows.map((r) => encodeNul(r.fold)), rows.map((r) => r.key)];
}

/** The words of terms given as `termValues`, for the vocabulary. */
export function wordsOfValues(values: readonly TermValues[]): Set<string> {
  const words = new Set<string>();
  for (const value of values) {
    for (const text of [value[6], value[7], value[10], value[11]]) {
      if (text) for (const word of text.split(/[ \n]/)) words.add(word);
    }
  }
  return words;
}

/** The words of a term as it was, for the vocabulary to see which ones left. */
export function wordsOfTerm(term: Term): string[] {
  const other = otherWords(term);
  return [...wordsOf(term.term), ...other.aliases, ...wordsOf(term.definition), ...other.avoid];
}

export function toTerm(row: Row): Term {
  return withOtherNames(
    {
      id: row.id,
      term: decodeNul(row.term),
      definition: decodeNul(row.definition),
      category: row.category,
      see_also: row.see_also,
    },
    row.aliases?.map(decodeNul),
    row.avoid?.map(decodeNul),
  );
}
