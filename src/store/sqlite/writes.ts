import type Database from 'better-sqlite3';
import { foldCase } from '../../glossary/fold-case.ts';
import type { Change, HistoryAction } from '../../glossary/history.ts';
import type { Term } from '../../glossary/term.ts';
import type { ImportOutcome } from '../../glossary/term-store.ts';
import { nameKey, wordsOf } from '../../glossary/words.ts';
import { foldsOf, LiveNames, nameRows, otherWords, storedTerm } from '../term-names.ts';
import { createBulkImport } from './bulk-import.ts';
import type { HistoryReads } from './history.ts';
import { liveNamesWithFolds, revisionText } from './read-statements.ts';
import { namesJson, TERM_COLUMNS, type TermRow, toTerm } from './term-rows.ts';
import type { Vocabulary } from './vocabulary.ts';

/**
 * The write transactions of the SQLite store. Each runs inside `BEGIN IMMEDIATE` (the caller
 * wraps it), so it holds the database's one write lock from its first statement: no other
 * writer, in this process or another, can change a term between the read and the write.
 * Every one that changes the glossary advances `glossary_state.revision` before it commits.
 *
 * Rule 8 (other names, term-store.ts) is checked the same way: a write reads, in its own
 * transaction, the rows of `term_names` that share a fold with the names it writes, and is
 * refused (rolled back) on a conflict; an import refuses the item alone. One writer at a time
 * holds the file, in every process, so no other write can slip a conflicting name in between
 * the check and the commit.
 */

interface CreationRow {
  revision: number;
  at: number;
  by: string | null;
}

/** What `createMany` stored, and the revisions (as reads tell them) before and after it. */
export interface Created {
  before: string;
  after: string;
  terms: Term[];
}

export interface Writes {
  /** Stores each term even when its id exists already (POST /terms), in order. */
  createMany(entries: readonly { term: Term; change: Change }[]): Created;
  importMany(terms: readonly Term[], change: Change): ImportOutcome[];
  update(id: number, edit: (current: Term) => Term, change: Change): Term | undefined;
  remove(id: number, confirm: (current: Term) => void, change: Change): Term | undefined;
  restore(
    id: number,
    revision: number,
    confirm: (current: Term | undefined) => void,
    change: Change,
  ): Term | 'no-such-revision' | undefined;
}

export function createWrites(
  db: Database.Database,
  vocabulary: Vocabulary,
  history: HistoryReads,
): Writes {
  const currentRevision = db.prepare<[], number>('SELECT revision FROM glossary_state').pluck();
  const setRevision = db.prepare<[number]>('UPDATE glossary_state SET revision = ?');
  const revisionTag = revisionText(db);
  /** Takes the next `count` revision numbers and answers the first. */
  const advance = (count: number): number => {
    const first = (currentRevision.get() ?? 0) + 1;
    setRevision.run(first + count - 1);
    return first;
  };

  const earliest = db.prepare<[number], TermRow>(
    `SELECT ${TERM_COLUMNS} FROM terms t WHERE t.id = ? ORDER BY t.seq LIMIT 1`,
  );
  const insert = db.prepare(
    `INSERT INTO terms (seq, id, term, term_folded, definition, category, see_also, aliases,
                        avoid, created_rev, created_at, created_by, name_key)
     VALUES (@seq, @id, @term, @folded, @definition, @category, @see_also, @aliases, @avoid,
             @created_rev, @created_at, @created_by, @name_key)`,
  );
  const replace = db.prepare(
    `UPDATE terms SET term = @term, term_folded = @folded, definition = @definition,
                      category = @category, see_also = @see_also, aliases = @aliases,
                      avoid = @avoid, name_key = @name_key
     WHERE seq = @seq`,
  );
  const erase = db.prepare<[number]>('DELETE FROM terms WHERE seq = ?');
  // The trigram index keeps no text of its own (external content): an entry is removed by
  // giving it the text it was indexed with.
  const indexAdd = db.prepare<[number | bigint, string]>(
    'INSERT INTO terms_fts (rowid, term_folded) VALUES (?, ?)',
  );
  const indexRemove = db.prepare<[number, string]>(
    `INSERT INTO terms_fts (terms_fts, rowid, term_folded) VALUES ('delete', ?, ?)`,
  );
  // The words (words.ts) of name and aliases, of the definition and of the names to avoid, for
  // `q`; rows keyed by seq.
  const wordsAdd = db.prepare<[number | bigint, string, string, string]>(
    `INSERT INTO terms_words (rowid, name_words, definition_words, avoid_words)
     VALUES (?, ?, ?, ?)`,
  );
  const wordsRemove = db.prepare<[number]>('DELETE FROM terms_words WHERE rowid = ?');
  // One row per name, alias and name to avoid of each live term (migration 9).
  const namesAdd = db.prepare<[number | bigint, string, string, string]>(
    'INSERT INTO term_names (seq, kind, fold, key) VALUES (?, ?, ?, ?)',
  );
  const namesRemove = db.prepare<[number]>('DELETE FROM term_names WHERE seq = ?');
  // One row per distinct id of each live term's `see_also` (migration 11), for `links_to`.
  const linksAdd = db.prepare<[number | bigint, string]>(
    'INSERT OR IGNORE INTO term_links (target, seq) SELECT value, ? FROM json_each(?)',
  );
  const linksRemove = db.prepare<[number]>('DELETE FROM term_links WHERE seq = ?');
  const namesWithFolds = liveNamesWithFolds(db);
  const liveNames = (terms: readonly Term[]) =>
    new LiveNames(namesWithFolds(terms.flatMap(foldsOf)));
  /** Refuses `term` under rule 8 (`self`: the seq of the term it replaces). */
  const check = (term: Term, self?: number) => {
    const conflict = liveNames([term]).conflict(term, self);
    if (conflict) throw conflict;
  };
  const record = db.prepare(
    `INSERT OR IGNORE INTO term_history (revision, seq, id, action, at, by, term)
     VALUES (@revision, @seq, @id, @action, @at, @by, @term)`,
  );
  const creationOf = db.prepare<[number], CreationRow>(
    `SELECT revision, at, by FROM term_history WHERE seq = ? AND action = 'created'`,
  );

  const values = (term: Term) => ({
    id: term.id,
    term: term.term,
    folded: foldCase(term.term),
    definition: term.definition,
    category: term.category,
    see_also: JSON.stringify(term.see_also),
    aliases: namesJson(term.aliases),
    avoid: namesJson(term.avoid),
    name_key: nameKey(term.term),
  });

  /** The words of a term as it was, for the vocabulary to see which ones left. */
  const wordsOfTerm = (term: Term) => {
    const other = otherWords(term);
    return [...wordsOf(term.term), ...other.aliases, ...wordsOf(term.definition), ...other.avoid];
  };

  /** Indexes the term's words and names under `seq`; answers its words, for the vocabulary. */
  function indexWords(seq: number | bigint, term: Term): string[] {
    const names = [...wordsOf(term.term), ...otherWords(term).aliases];
    const definition = wordsOf(term.definition);
    const avoid = otherWords(term).avoid;
    wordsAdd.run(seq, names.join(' '), definition.join(' '), avoid.join(' '));
    for (const row of nameRows(term)) namesAdd.run(seq, row.kind, row.fold, row.key);
    return [...names, ...definition, ...avoid];
  }

  function add(
    term: Term,
    created: { rev: number; at: number; by: string | null },
    seq?: number,
  ): string[] {
    const row = values(term);
    const { lastInsertRowid } = insert.run({
      ...row,
      seq: seq ?? null,
      created_rev: created.rev,
      created_at: created.at,
      created_by: created.by,
    });
    indexAdd.run(lastInsertRowid, row.folded);
    if (term.see_also.length > 0) linksAdd.run(lastInsertRowid, row.see_also);
    return indexWords(lastInsertRowid, term);
  }

  /** A term's creation enters the history when its first change is about to overwrite it. */
  function keepCreation(row: TermRow): void {
    record.run({
      revision: row.created_rev,
      seq: row.seq,
      id: row.id,
      action: 'created',
      at: row.created_at,
      by: row.created_by,
      term: JSON.stringify(toTerm(row)),
    });
  }

  /**
   * The time of a change of `row`'s id: read now, inside the transaction that holds the write
   * lock, and never before the id's newest entry, so the id's history does not go back in time
   * as its revisions grow (a clock set back, or another process's clock behind ours).
   */
  function timeOf(row: TermRow, change: Change): number {
    if (change.at !== undefined) return change.at;
    return Math.max(Date.now(), row.created_at, history.lastAt(row.id) ?? 0);
  }

  /** Answers the revision of the change. */
  function recordChange(row: TermRow, action: HistoryAction, term: Term, change: Change): number {
    const at = timeOf(row, change);
    const revision = advance(1);
    record.run({
      revision,
      seq: row.seq,
      id: row.id,
      action,
      at,
      by: change.by,
      term: JSON.stringify(term),
    });
    return revision;
  }

  function overwrite(row: TermRow, next: Term): string[] {
    if (next.id !== row.id) throw new Error('a term keeps its id when it changes');
    const fields = values(next);
    indexRemove.run(row.seq, row.term_folded);
    replace.run({ ...fields, seq: row.seq });
    indexAdd.run(row.seq, fields.folded);
    if (fields.see_also !== row.see_also) {
      linksRemove.run(row.seq);
      linksAdd.run(row.seq, fields.see_also);
    }
    wordsRemove.run(row.seq);
    namesRemove.run(row.seq);
    return indexWords(row.seq, next);
  }

  return {
    createMany(entries) {
      const before = revisionTag.get() ?? '';
      const first = advance(entries.length);
      const words = new Set<string>();
      const now = Date.now();
      const terms = entries.map(({ term, change }, i) => {
        const at = change.at ?? now;
        // A conflict rolls back the whole group; group-commit.ts then stores each on its own.
        check(term);
        const stored = storedTerm(term);
        for (const word of add(stored, { rev: first + i, at, by: change.by })) words.add(word);
        return stored;
      });
      vocabulary.record(words, first + entries.length - 1);
      return { before, after: revisionTag.get() ?? '', terms };
    },
    importMany: createBulkImport(db, vocabulary),
    update(id, edit, change) {
      const row = earliest.get(id);
      if (!row) return undefined;
      const current = toTerm(row);
      const next = storedTerm(edit(current));
      check(next, row.seq);
      keepCreation(row);
      const words = overwrite(row, next);
      vocabulary.record(words, recordChange(row, 'updated', next, change), wordsOfTerm(current));
      return next;
    },
    remove(id, confirm, change) {
      const row = earliest.get(id);
      if (!row) return undefined;
      const current = toTerm(row);
      confirm(current);
      keepCreation(row);
      indexRemove.run(row.seq, row.term_folded);
      wordsRemove.run(row.seq);
      namesRemove.run(row.seq);
      linksRemove.run(row.seq);
      erase.run(row.seq);
      vocabulary.record([], recordChange(row, 'deleted', current, change), wordsOfTerm(current));
      return current;
    },
    restore(id, revision, confirm, change) {
      const entry = history.entry(id, revision);
      if (!entry) return history.existed(id) ? 'no-such-revision' : undefined;
      const row = earliest.get(id);
      confirm(row && toTerm(row));
      const restored = storedTerm(entry.term);
      check(restored, row?.seq);
      if (row) {
        keepCreation(row);
        const words = overwrite(row, restored);
        const rev = recordChange(row, 'restored', restored, change);
        vocabulary.record(words, rev, wordsOfTerm(toTerm(row)));
        return restored;
      }
      // No live term: the one the entry belongs to comes back at its old place, with its
      // original creation (kept in the history when it was deleted).
      const creation = creationOf.get(entry.seq);
      const created = creation
        ? { rev: creation.revision, at: creation.at, by: creation.by }
        : { rev: entry.revision, at: entry.at, by: entry.by };
      const words = add(restored, created, entry.seq);
      const rev = recordChange(earliest.get(id) as TermRow, 'restored', restored, change);
      vocabulary.record(words, rev);
      return restored;
    },
  };
}
