import type Database from 'better-sqlite3';
import { foldCase } from '../../glossary/fold-case.ts';
import type { Change } from '../../glossary/history.ts';
import { namesOf } from '../../glossary/other-names.ts';
import type { Term } from '../../glossary/term.ts';
import type { ImportOutcome } from '../../glossary/term-store.ts';
import { nameKey, wordsOf } from '../../glossary/words.ts';
import { LiveNames, otherWords, storedTerm } from '../term-names.ts';
import { liveNamesWithFolds } from './read-statements.ts';
import { namesJson } from './term-rows.ts';
import type { Vocabulary } from './vocabulary.ts';

/**
 * The bulk import of the SQLite store (`importMany`), inside the write transaction the caller
 * opens. The items are judged in JS first (ids taken, rule 8 in order, each item checked
 * against the live names and the batch's earlier items), then the terms created are written
 * table by table, a few statements for the whole batch instead of seven a row: a statement
 * costs better-sqlite3 and SQLite a fixed price per call (binding, stepping, FTS5's per-call
 * work) that was most of an import's time. Every index is written before the commit, so an
 * imported term is found by every search as soon as the import answers.
 *
 * The terms get consecutive `seq` numbers chosen here, after the highest ever given
 * (AUTOINCREMENT's `sqlite_sequence`, or the highest row): what SQLite would have given them
 * one by one, and the key every index row is written under.
 */

/** Rows per multi-row INSERT: 13 columns × 500 stays far below SQLite's 32,766 parameters. */
const ROWS_PER_STATEMENT = 500;

type Cell = string | number | bigint | null;

/** An INSERT of many rows at once, its statements prepared once per row count. */
function rowsInserter(db: Database.Database, head: string, columns: number) {
  const statements = new Map<number, Database.Statement<Cell[]>>();
  const statement = (rows: number) => {
    let prepared = statements.get(rows);
    if (!prepared) {
      const row = `(${Array.from({ length: columns }, () => '?').join(', ')})`;
      prepared = db.prepare<Cell[]>(`${head} VALUES ${Array.from({ length: rows }, () => row)}`);
      // The full size and a few tails are kept; a tail is cheap to prepare again.
      if (rows === ROWS_PER_STATEMENT || statements.size < 16) statements.set(rows, prepared);
    }
    return prepared;
  };
  return (cells: Cell[]): void => {
    const perStatement = ROWS_PER_STATEMENT * columns;
    for (let start = 0; start < cells.length; start += perStatement) {
      const part =
        cells.length - start > perStatement
          ? cells.slice(start, start + perStatement)
          : cells.slice(start);
      statement(part.length / columns).run(...part);
    }
  };
}

export function createBulkImport(db: Database.Database, vocabulary: Vocabulary) {
  const currentRevision = db.prepare<[], number>('SELECT revision FROM glossary_state').pluck();
  const setRevision = db.prepare<[number]>('UPDATE glossary_state SET revision = ?');
  const lastSeq = db
    .prepare<[], number>(
      `SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'terms'), 0),
                  coalesce((SELECT max(seq) FROM terms), 0))`,
    )
    .pluck();
  // The ids (a JSON array of integers) some term has already.
  const taken = db
    .prepare<[string], number>(
      'SELECT value FROM json_each(?) WHERE EXISTS (SELECT 1 FROM terms WHERE id = value)',
    )
    .pluck();
  const namesWithFolds = liveNamesWithFolds(db);
  const insertTerms = rowsInserter(
    db,
    `INSERT INTO terms (seq, id, term, term_folded, definition, category, see_also, aliases,
                        avoid, created_rev, created_at, created_by, name_key)`,
    13,
  );
  // The words (words.ts: letters and digits only, so JSON carries them exactly) of each term,
  // as [name and aliases, definition, names to avoid], rowids from the first seq on.
  const insertWords = db.prepare<[number, string]>(
    `INSERT INTO terms_words (rowid, name_words, definition_words, avoid_words)
     SELECT ? + key, value->>0, value->>1, value->>2 FROM json_each(?)`,
  );
  const insertNames = rowsInserter(db, 'INSERT INTO term_names (seq, kind, fold, key)', 4);
  // The trigram index (external content) and the links are made from the rows just stored.
  const indexRange = db.prepare<[number, number]>(
    `INSERT INTO terms_fts (rowid, term_folded)
     SELECT seq, term_folded FROM terms WHERE seq BETWEEN ? AND ?`,
  );
  const linksRange = db.prepare<[number, number]>(
    `INSERT OR IGNORE INTO term_links (target, seq)
     SELECT j.value, t.seq FROM terms t, json_each(t.see_also) j
     WHERE t.seq BETWEEN ? AND ? AND t.see_also <> '[]'`,
  );

  return function importMany(terms: readonly Term[], change: Change): ImportOutcome[] {
    const existing = new Set(taken.all(JSON.stringify(terms.map((term) => term.id))));
    // Each item's names, folded once: the fold is the costliest part of judging an item.
    const fresh = terms
      .filter((term) => !existing.has(term.id))
      .map((term) => ({ term: storedTerm(term), names: namesOf(term) }));
    if (fresh.length === 0) return terms.map(() => 'exists');
    // The live names sharing a fold with the batch's, read at once; each item stored joins
    // them, so a later item is checked against the earlier ones too.
    const folds = new Set<string>();
    for (const { names } of fresh) for (const name of names) folds.add(name.fold);
    const live = new LiveNames(namesWithFolds(folds));
    const outcomes = new Map<number, ImportOutcome>();
    const firstRevision = (currentRevision.get() ?? 0) + 1;
    const firstSeq = lastSeq.get() ?? 0;
    const at = change.at ?? Date.now();
    const termCells: Cell[] = [];
    const wordRows: string[][] = [];
    const nameCells: Cell[] = [];
    const words = new Set<string>();
    let created = 0;
    for (const { term, names } of fresh) {
      const conflict = live.conflict(term, undefined, names);
      if (conflict) {
        outcomes.set(term.id, conflict);
        continue;
      }
      const seq = firstSeq + created + 1;
      const nameWords = wordsOf(term.term);
      const key = nameWords.join(' ');
      termCells.push(
        seq,
        term.id,
        term.term,
        foldCase(term.term),
        term.definition,
        term.category,
        JSON.stringify(term.see_also),
        namesJson(term.aliases),
        namesJson(term.avoid),
        firstRevision + created,
        at,
        change.by,
        key,
      );
      const other = otherWords(term);
      const definition = wordsOf(term.definition);
      const allNames = other.aliases.length > 0 ? [...nameWords, ...other.aliases] : nameWords;
      wordRows.push([allNames.join(' '), definition.join(' '), other.avoid.join(' ')]);
      for (const word of allNames) words.add(word);
      for (const word of definition) words.add(word);
      for (const word of other.avoid) words.add(word);
      // The rows of term_names (nameRows: the name, each alias, each name to avoid).
      for (const name of names) {
        nameCells.push(seq, name.kind, name.fold, name.kind === 'term' ? key : nameKey(name.text));
        live.add({ fold: name.fold, kind: name.kind, id: term.id, seq });
      }
      outcomes.set(term.id, 'created');
      created += 1;
    }
    if (created > 0) {
      insertTerms(termCells);
      insertNames(nameCells);
      linksRange.run(firstSeq + 1, firstSeq + created);
      setRevision.run(firstRevision + created - 1);
      vocabulary.record(words, firstRevision + created - 1);
      // The FTS5 indexes last, one statement each: a statement that may fail half-way opens a
      // savepoint, which makes FTS5 write what it holds in memory as a segment of its own (a
      // statement per 500 rows made twenty small segments a batch, each merged and read later).
      indexRange.run(firstSeq + 1, firstSeq + created);
      insertWords.run(firstSeq + 1, JSON.stringify(wordRows));
    }
    return terms.map((term) => outcomes.get(term.id) ?? 'exists');
  };
}
