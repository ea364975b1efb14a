import type Database from 'better-sqlite3';
import { foldCase } from '../../glossary/fold-case.ts';
import { nameFold } from '../../glossary/other-names.ts';
import { CATEGORIES } from '../../glossary/term.ts';
import { nameKey, typoCandidate, wordsOf } from '../../glossary/words.ts';
import { SchemaError } from '../errors.ts';

/**
 * The SQLite schema, as numbered migrations kept in `PRAGMA user_version`. A release only ever
 * appends to this list; the service applies what is missing at start-up, one transaction per
 * step, and refuses a database written by a newer release.
 */

/** Marks the file as this service's database ("GLOS"), so a foreign one is never touched. */
export const APPLICATION_ID = 0x474c4f53;

const categories = CATEGORIES.map((c) => `'${c}'`).join(', ');

export const MIGRATIONS: readonly string[] = [
  // 1: terms, in creation order. `seq` is the creation order itself (AUTOINCREMENT never
  // reuses a value); `id` is the client's and may repeat (POST /terms does not check).
  `CREATE TABLE terms (
     seq         INTEGER PRIMARY KEY AUTOINCREMENT,
     id          INTEGER NOT NULL,
     term        TEXT    NOT NULL,
     term_folded TEXT    NOT NULL,
     definition  TEXT    NOT NULL,
     category    TEXT    NOT NULL CHECK (category IN (${categories})),
     see_also    TEXT    NOT NULL CHECK (json_valid(see_also) AND json_type(see_also) = 'array')
   ) STRICT;
   CREATE INDEX terms_by_id ON terms (id, seq);
   CREATE INDEX terms_by_category ON terms (category, seq);`,
  // 2: indexed substring search and term order. `terms_fts` indexes every trigram of the
  // folded term (folded in JS by `foldCase`, hence `case_sensitive 1`: the index must not fold
  // again) and keeps no text of its own (external content). `detail=none` keeps it small: the
  // store asks for every trigram of a pattern and verifies each candidate with `instr`, so
  // positions are never needed. The store writes each row to both tables in one transaction
  // (a trigger would do the same five times slower: FTS5 flushes at every trigger statement);
  // `rebuild` back-fills the rows stored before this step.
  `CREATE VIRTUAL TABLE terms_fts USING fts5(
     term_folded,
     content = 'terms',
     content_rowid = 'seq',
     tokenize = 'trigram case_sensitive 1',
     detail = none
   );
   INSERT INTO terms_fts (terms_fts) VALUES ('rebuild');
   CREATE INDEX terms_by_term ON terms (term_folded, seq);`,
  // 3: editing, history and write tokens.
  // `glossary_state` is one row: `revision` numbers every change (rule 3 of TermStore) and
  // every history entry; `identity` tells this glossary from any other, so an ETag taken
  // from one never matches another that reached the same revision.
  // A term's creation is recorded on its own row (`created_*`), not in `term_history`: an
  // import writes no history rows. The first change of a term copies its creation into
  // `term_history` (its state is about to be lost); from then on, every change adds a row.
  // Terms stored before this step get revision = seq and the upgrade's time as creation.
  `CREATE TABLE glossary_state (
     one      INTEGER PRIMARY KEY CHECK (one = 1),
     revision INTEGER NOT NULL,
     identity TEXT    NOT NULL
   ) STRICT;
   INSERT INTO glossary_state (one, revision, identity)
     SELECT 1, coalesce(max(seq), 0), lower(hex(randomblob(8))) FROM terms;
   ALTER TABLE terms ADD COLUMN created_rev INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE terms ADD COLUMN created_at  INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE terms ADD COLUMN created_by  TEXT;
   UPDATE terms SET created_rev = seq, created_at = CAST(unixepoch('subsec') * 1000 AS INTEGER);
   CREATE TABLE term_history (
     revision INTEGER PRIMARY KEY,
     seq      INTEGER NOT NULL,
     id       INTEGER NOT NULL,
     action   TEXT    NOT NULL CHECK (action IN ('created', 'updated', 'deleted', 'restored')),
     at       INTEGER NOT NULL,
     by       TEXT,
     term     TEXT    NOT NULL
   ) STRICT;
   CREATE INDEX term_history_by_id ON term_history (id, revision);
   CREATE INDEX term_history_by_seq ON term_history (seq, revision);
   CREATE TABLE tokens (
     name       TEXT    PRIMARY KEY,
     lookup     TEXT    NOT NULL UNIQUE,
     hash       BLOB    NOT NULL,
     kind       TEXT    NOT NULL CHECK (kind IN ('write', 'read-only')),
     created_at INTEGER NOT NULL
   ) STRICT;`,
  // 4: words, for `q` (glossary/words.ts makes them; the functions below are the same code).
  // `name_key` is the name's words joined by single spaces: an exact name and a name that
  // starts with the query are found through its index. `terms_words` indexes the words of
  // name and definition, already folded and split, so the `ascii` tokenizer only cuts at the
  // spaces; it keeps no text (contentless, rows deleted by rowid = seq) and no positions.
  // `vocabulary` holds every word a typo may find, with the revision that first stored it,
  // so each process can bring its copy in memory up to date by asking what is new.
  // `terms_words_vocab` lists the indexed words, for turning a prefix into the words it
  // begins (see read-statements.ts).
  `ALTER TABLE terms ADD COLUMN name_key TEXT NOT NULL DEFAULT '';
   UPDATE terms SET name_key = glossary_name_key(term);
   CREATE INDEX terms_by_name_key ON terms (name_key, seq);
   CREATE VIRTUAL TABLE terms_words USING fts5(
     name_words,
     definition_words,
     content = '',
     contentless_delete = 1,
     tokenize = 'ascii',
     detail = column
   );
   INSERT INTO terms_words (rowid, name_words, definition_words)
     SELECT seq, glossary_words(term), glossary_words(definition) FROM terms;
   CREATE TABLE vocabulary (
     word TEXT    PRIMARY KEY,
     rev  INTEGER NOT NULL
   ) STRICT, WITHOUT ROWID;
   CREATE INDEX vocabulary_by_rev ON vocabulary (rev);
   CREATE VIRTUAL TABLE terms_words_vocab USING fts5vocab(terms_words, 'row');
   INSERT INTO vocabulary (word, rev)
     SELECT term, (SELECT revision FROM glossary_state) FROM terms_words_vocab
     WHERE glossary_typo_candidate(term);`,
  // 5: capital sharp s ẞ folds to ss, as ß does (fold-case.ts; it folded to ß before). The
  // terms holding one get their folded name, name key and words again, in both indexes; the
  // revision moves on, so no ETag taken before answers for a search that now finds more.
  `CREATE TEMP TABLE refolded AS
     SELECT seq FROM terms WHERE instr(term, 'ẞ') > 0 OR instr(definition, 'ẞ') > 0;
   INSERT INTO terms_fts (terms_fts, rowid, term_folded)
     SELECT 'delete', seq, term_folded FROM terms WHERE seq IN (SELECT seq FROM refolded);
   UPDATE terms SET term_folded = glossary_fold(term), name_key = glossary_name_key(term)
     WHERE seq IN (SELECT seq FROM refolded);
   INSERT INTO terms_fts (rowid, term_folded)
     SELECT seq, term_folded FROM terms WHERE seq IN (SELECT seq FROM refolded);
   DELETE FROM terms_words WHERE rowid IN (SELECT seq FROM refolded);
   INSERT INTO terms_words (rowid, name_words, definition_words)
     SELECT seq, glossary_words(term), glossary_words(definition) FROM terms
     WHERE seq IN (SELECT seq FROM refolded);
   UPDATE glossary_state SET revision = revision + 1;
   INSERT OR IGNORE INTO vocabulary (word, rev)
     SELECT term, (SELECT revision FROM glossary_state) FROM terms_words_vocab
     WHERE glossary_typo_candidate(term);
   DROP TABLE refolded;`,
  // 6: `indexed_words` lists every word ever indexed, for turning a prefix into the words it
  // begins with one range read. `terms_words_vocab` answered the same, but counted each word's
  // documents as it went: a prefix beginning a word of many terms read that word's whole
  // doclist (125,000 entries for a common word at 1M terms) on every request.
  `CREATE TABLE indexed_words (word TEXT PRIMARY KEY) STRICT, WITHOUT ROWID;
   INSERT INTO indexed_words (word) SELECT term FROM terms_words_vocab;
   DROP TABLE terms_words_vocab;`,
  // 7: upkeep of the FTS5 indexes (upkeep.ts). `merged_revision` is the glossary's
  // revision when the indexes were last merged into one b-tree each; the store merges them when
  // it is idle and the revision has moved on by a tenth of the glossary since. A file from
  // before starts with its terms counted, so it is merged once, the first time the store is
  // quiet after it opens.
  `CREATE TABLE index_upkeep (
     one             INTEGER PRIMARY KEY CHECK (one = 1),
     merged_revision INTEGER NOT NULL
   ) STRICT;
   INSERT INTO index_upkeep (one, merged_revision)
     SELECT 1, revision - (SELECT count(*) FROM terms) FROM glossary_state;`,
  // 8: two changes of how text is kept, one pass over the terms.
  // The folded name is in Unicode's composed form (NFC, fold-case.ts), so canonically
  // equivalent names and patterns find each other. Only a name with a character beyond ASCII
  // can fold differently (its bytes outnumber its characters); those that do are folded again
  // in the table and the trigram index, and then the revision moves on, as in migration 5.
  // The words follow the glossary's content (vocabulary.ts): `indexed_words` and `vocabulary`
  // become exactly the words of the live terms (they only grew before), and `vocabulary` keeps
  // a removal, numbered like an addition, until `removed_at` is old enough to purge;
  // `vocabulary_state.purged` is the highest number purged.
  `CREATE TEMP TABLE refolded AS
     SELECT seq FROM terms
     WHERE length(CAST(term AS BLOB)) <> length(term) AND term_folded <> glossary_fold(term);
   INSERT INTO terms_fts (terms_fts, rowid, term_folded)
     SELECT 'delete', seq, term_folded FROM terms WHERE seq IN (SELECT seq FROM refolded);
   UPDATE terms SET term_folded = glossary_fold(term) WHERE seq IN (SELECT seq FROM refolded);
   INSERT INTO terms_fts (rowid, term_folded)
     SELECT seq, term_folded FROM terms WHERE seq IN (SELECT seq FROM refolded);
   UPDATE glossary_state SET revision = revision + 1 WHERE EXISTS (SELECT 1 FROM refolded);
   DROP TABLE refolded;
   CREATE TEMP TABLE live_words (word TEXT PRIMARY KEY) WITHOUT ROWID;
   INSERT OR IGNORE INTO live_words
     SELECT w.value FROM terms t, json_each(glossary_word_array(t.term, t.definition)) w;
   DELETE FROM indexed_words WHERE word NOT IN (SELECT word FROM live_words);
   INSERT OR IGNORE INTO indexed_words (word) SELECT word FROM live_words;
   ALTER TABLE vocabulary ADD COLUMN removed_at INTEGER;
   CREATE INDEX vocabulary_removed ON vocabulary (removed_at) WHERE removed_at IS NOT NULL;
   DELETE FROM vocabulary WHERE word NOT IN (SELECT word FROM live_words);
   INSERT OR IGNORE INTO vocabulary (word, rev)
     SELECT word, (SELECT revision FROM glossary_state) FROM live_words
     WHERE glossary_typo_candidate(word);
   DROP TABLE live_words;
   CREATE TABLE vocabulary_state (
     one    INTEGER PRIMARY KEY CHECK (one = 1),
     purged INTEGER NOT NULL
   ) STRICT;
   INSERT INTO vocabulary_state (one, purged) VALUES (1, -1);`,
  // 9: other names of a term (TermStore rule 8, other-names.ts). `aliases` and `avoid` are
  // JSON arrays of text, NULL when the term has none. `terms_words` gets a third column: it
  // now indexes in `name_words` the words of the name and of every alias, and in
  // `avoid_words` those of every name to avoid (FTS5 has no ADD COLUMN: it is made again, with
  // the same options, and filled from `terms`). `term_names` has a row per name, alias and
  // name to avoid of every live term: `fold` (nameFold) is what the rule compares, through
  // its index; `key` (nameKey, the words joined by single spaces) is what `q` compares as a
  // name, through `(key, seq)`; rows go with their term's row (`seq`, through its own
  // index). Every term stored before has no other names: it is kept exactly as it was.
  `ALTER TABLE terms ADD COLUMN aliases TEXT
     CHECK (aliases IS NULL OR (json_valid(aliases) AND json_type(aliases) = 'array'));
   ALTER TABLE terms ADD COLUMN avoid TEXT
     CHECK (avoid IS NULL OR (json_valid(avoid) AND json_type(avoid) = 'array'));
   DROP TABLE terms_words;
   CREATE VIRTUAL TABLE terms_words USING fts5(
     name_words,
     definition_words,
     avoid_words,
     content = '',
     contentless_delete = 1,
     tokenize = 'ascii',
     detail = column
   );
   INSERT INTO terms_words (rowid, name_words, definition_words, avoid_words)
     SELECT seq, glossary_names_words(term, aliases), glossary_words(definition),
            glossary_names_words('', avoid)
     FROM terms;
   CREATE TABLE term_names (
     seq  INTEGER NOT NULL,
     kind TEXT    NOT NULL CHECK (kind IN ('term', 'aliases', 'avoid')),
     fold TEXT    NOT NULL,
     key  TEXT    NOT NULL
   ) STRICT;
   INSERT INTO term_names (seq, kind, fold, key)
     SELECT t.seq, 'term', glossary_name_fold(t.term), glossary_name_key(t.term) FROM terms t;
   CREATE INDEX term_names_by_fold ON term_names (fold);
   CREATE INDEX term_names_by_key ON term_names (key, seq);
   CREATE INDEX term_names_by_seq ON term_names (seq);`,
  // 10: the change feed and webhooks (changes.ts, webhooks.ts). The feed reads the creations
  // still kept only on their `terms` row (never changed, or imported) in revision order:
  // `terms_by_created_rev`. `webhooks.id` is AUTOINCREMENT, so a removed endpoint's id is never
  // given again (a deliverer that still holds it cannot touch another endpoint). `types` is a
  // JSON array of change types (empty: all). The lease (`lease_owner` until `lease_until`, ms)
  // gives an endpoint to one deliverer at a time across processes. `webhook_deliveries` keeps
  // an endpoint's recent attempts, newest the highest `seq`, pruned when one is added.
  `CREATE INDEX terms_by_created_rev ON terms (created_rev);
   CREATE TABLE webhooks (
     id                    INTEGER PRIMARY KEY AUTOINCREMENT,
     name                  TEXT    NOT NULL UNIQUE,
     url                   TEXT    NOT NULL,
     types                 TEXT    NOT NULL
                             CHECK (json_valid(types) AND json_type(types) = 'array'),
     secret                TEXT    NOT NULL,
     previous_secret       TEXT,
     previous_secret_until INTEGER,
     created_at            INTEGER NOT NULL,
     cursor                INTEGER NOT NULL,
     state                 TEXT    NOT NULL DEFAULT 'active'
                             CHECK (state IN ('active', 'disabled')),
     disabled_reason       TEXT,
     attempts              INTEGER NOT NULL DEFAULT 0,
     next_attempt_at       INTEGER,
     lease_owner           TEXT,
     lease_until           INTEGER
   ) STRICT;
   CREATE TABLE webhook_deliveries (
     seq         INTEGER PRIMARY KEY,
     webhook_id  INTEGER NOT NULL,
     revision    INTEGER NOT NULL,
     at          INTEGER NOT NULL,
     status      INTEGER,
     error       TEXT,
     duration_ms REAL    NOT NULL
   ) STRICT;
   CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, seq);`,
  // 11: links, for `links_to` (the terms whose `see_also` holds an id) and the warnings of
  // writes. `term_links` has a row per distinct id in each live term's `see_also`, keyed
  // (target, seq): the terms linking to an id are one range of its key, in creation order.
  // The store writes it beside the term's row (writes.ts), as it does the indexes: a trigger
  // on `terms` made every insert flush FTS5's pending terms (a statement with a trigger opens
  // a savepoint), which doubled the CPU of an import (80 µs a term more).
  `CREATE TABLE term_links (
     target INTEGER NOT NULL,
     seq    INTEGER NOT NULL,
     PRIMARY KEY (target, seq)
   ) STRICT, WITHOUT ROWID;
   CREATE INDEX term_links_by_seq ON term_links (seq);
   INSERT OR IGNORE INTO term_links (target, seq)
     SELECT j.value, t.seq FROM terms t, json_each(t.see_also) j;`,
];

/** The JS the migrations call: words.ts, so that old terms get exactly what new ones get. */
export function registerWordFunctions(db: Database.Database): void {
  const options = { deterministic: true, directOnly: true };
  db.function('glossary_fold', options, (text: unknown) => foldCase(String(text)));
  db.function('glossary_name_key', options, (text: unknown) => nameKey(String(text)));
  db.function('glossary_words', options, (text: unknown) => wordsOf(String(text)).join(' '));
  db.function('glossary_name_fold', options, (text: unknown) => nameFold(String(text)));
  // The words of a name and of a JSON array of names (NULL: none), joined by single spaces.
  db.function('glossary_names_words', options, (name: unknown, names: unknown) =>
    [String(name), ...(names ? (JSON.parse(String(names)) as string[]) : [])]
      .flatMap((text) => wordsOf(text))
      .join(' '),
  );
  db.function('glossary_word_array', options, (term: unknown, definition: unknown) =>
    JSON.stringify([...new Set([...wordsOf(String(term)), ...wordsOf(String(definition))])]),
  );
  db.function('glossary_typo_candidate', options, (word: unknown) =>
    typoCandidate(String(word)) ? 1 : 0,
  );
}

/**
 * Refuses a file this release must not touch, and answers the schema version of one it may.
 * Every migration sets `application_id` in the same transaction as `user_version`, so a file
 * without our id is ours only while it is still empty.
 */
export function checkOwnFile(db: Database.Database, file: string): number {
  const applicationId = db.pragma('application_id', { simple: true }) as number;
  const version = db.pragma('user_version', { simple: true }) as number;
  if (applicationId !== 0 && applicationId !== APPLICATION_ID) {
    throw new SchemaError(
      `${file} belongs to another application (application_id ${applicationId})`,
    );
  }
  if (applicationId === 0 && (version !== 0 || hasTables(db))) {
    throw new SchemaError(`${file} is an SQLite database of another application`);
  }
  if (version > MIGRATIONS.length) {
    throw new SchemaError(
      `${file} has schema version ${version}, newer than this release knows (${MIGRATIONS.length}); run a newer release`,
    );
  }
  return version;
}

/** Applies the missing migrations; the checks repeat inside each write transaction. */
export function migrate(db: Database.Database, file: string): void {
  registerWordFunctions(db);
  for (;;) {
    const done = db
      .transaction(() => {
        const version = checkOwnFile(db, file);
        const next = MIGRATIONS[version];
        if (next === undefined) return true;
        db.exec(next);
        db.pragma(`user_version = ${version + 1}`);
        db.pragma(`application_id = ${APPLICATION_ID}`);
        return false;
      })
      .immediate();
    if (done) return;
  }
}

function hasTables(db: Database.Database): boolean {
  return (
    db.prepare(`SELECT 1 FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' LIMIT 1`).get() !==
    undefined
  );
}
