import type pg from 'pg';
import { foldCase } from '../../glossary/fold-case.ts';
import { CATEGORIES, MAX_ID } from '../../glossary/term.ts';
import { MAX_TYPO_WORD, typoCandidate, wordsOf } from '../../glossary/words.ts';
import { noteTermChanges } from './change-log-trigger.ts';
import { fillTermNames, inBatches, refoldNames } from './migration-backfills.ts';
import { decodeNul, encodeNul } from './nul-text.ts';
import { ALIAS_KEYS, ALL_VECTOR, AVOID_VECTOR, NAME_VECTOR, NAMES_VECTOR } from './term-rows.ts';

/**
 * The PostgreSQL schema, as numbered migrations kept in the one-row table `schema_version`. A
 * release only ever appends to this list; migrate.ts applies what is missing at start-up.
 */

const categories = CATEGORIES.map((c) => `'${c}'`).join(', ');

/** A step: SQL, or work that needs the service's own code (words.ts) and a client. */
export type Migration = string | ((client: pg.ClientBase) => Promise<void>);

export const MIGRATIONS: readonly Migration[] = [
  // 1: terms, in creation order. `seq` is the creation order itself, drawn from one database
  // sequence for every instance; `id` is the client's and may repeat (POST /terms does not
  // check). `term_folded` is `foldCase(term)`, computed by the service exactly as for SQLite,
  // and collated "C" (byte order of UTF-8) so that sort=term orders as SQLite's BINARY does.
  // `term_ids` holds each distinct stored id once: its primary key is what makes the bulk path
  // create an id exactly once across concurrent requests and instances (see `importMany`).
  // `glossary_revision` holds write counters (see `revisionSlot()` in transaction.ts).
  `CREATE EXTENSION IF NOT EXISTS pg_trgm;
   CREATE TABLE terms (
     seq         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     id          bigint NOT NULL CHECK (id BETWEEN -${MAX_ID} AND ${MAX_ID}),
     term        text   NOT NULL,
     term_folded text   COLLATE "C" NOT NULL,
     definition  text   NOT NULL,
     category    text   NOT NULL CHECK (category IN (${categories})),
     see_also    jsonb  NOT NULL CHECK (jsonb_typeof(see_also) = 'array')
   );
   CREATE INDEX terms_by_id ON terms (id, seq);
   CREATE INDEX terms_by_category ON terms (category, seq);
   CREATE INDEX terms_by_term ON terms (term_folded, seq);
   CREATE INDEX terms_term_trigrams ON terms USING gin (term_folded gin_trgm_ops);
   CREATE TABLE term_ids (
     id bigint PRIMARY KEY
   );
   CREATE TABLE glossary_revision (
     slot  smallint PRIMARY KEY,
     value bigint   NOT NULL
   );
   INSERT INTO glossary_revision (slot, value) SELECT slot, 0 FROM generate_series(0, 15) slot;`,
  // 2: editing, history and write tokens (the same design as SQLite's migration 3).
  // `term_revision` numbers every history entry, a term's creation included (`created_rev`);
  // a creation enters `term_history` only when the term first changes. `term_ids.live`
  // counts the live terms of an id: the bulk path may claim an id whose count is 0 (deleted),
  // and every write that touches an id locks its row first, so writes of one id queue.
  // `glossary_identity` tells this glossary from any other in ETags.
  `CREATE SEQUENCE term_revision AS bigint;
   SELECT setval('term_revision', coalesce(max(seq), 1), max(seq) IS NOT NULL) FROM terms;
   ALTER TABLE terms ADD COLUMN created_rev bigint, ADD COLUMN created_at bigint,
     ADD COLUMN created_by text;
   UPDATE terms SET created_rev = seq, created_at = (extract(epoch FROM now()) * 1000)::bigint;
   ALTER TABLE terms ALTER COLUMN created_rev SET NOT NULL,
     ALTER COLUMN created_rev SET DEFAULT nextval('term_revision'),
     ALTER COLUMN created_at SET NOT NULL;
   ALTER TABLE term_ids ADD COLUMN live integer NOT NULL DEFAULT 0;
   UPDATE term_ids i SET live = c.n
     FROM (SELECT id, count(*) AS n FROM terms GROUP BY id) c WHERE c.id = i.id;
   CREATE TABLE term_history (
     revision bigint PRIMARY KEY,
     seq      bigint NOT NULL,
     id       bigint NOT NULL,
     action   text   NOT NULL CHECK (action IN ('created', 'updated', 'deleted', 'restored')),
     at       bigint NOT NULL,
     by       text,
     term     text   NOT NULL
   );
   CREATE INDEX term_history_by_id ON term_history (id, revision);
   CREATE INDEX term_history_by_seq ON term_history (seq, revision);
   CREATE TABLE glossary_identity (identity text NOT NULL);
   INSERT INTO glossary_identity SELECT replace(gen_random_uuid()::text, '-', '');
   CREATE TABLE tokens (
     name       text   PRIMARY KEY,
     lookup     text   NOT NULL UNIQUE,
     hash       bytea  NOT NULL,
     kind       text   NOT NULL CHECK (kind IN ('write', 'read-only')),
     created_at bigint NOT NULL
   );`,
  // 3: words, for `q`, as SQLite's migration 4. `name_words` holds the words of the name
  // (words.ts) joined by single spaces: the name's key ("exact name", "starts with", through
  // its btree). `name_vec` and `all_vec` hold the words of the name, and of name and
  // definition, as lexemes made without any text-search parser or dictionary (the words are
  // the service's); as real columns they get ANALYZE's lexeme statistics, which the planner
  // needs to tell a broad word from a rare one. `vocabulary`: see vocabulary.ts. The terms
  // already stored get their words from the service's code.
  async (client) => {
    await client.query(
      `ALTER TABLE terms ADD COLUMN name_words text COLLATE "C" NOT NULL DEFAULT '',
         ADD COLUMN name_vec tsvector GENERATED ALWAYS AS (${NAME_VECTOR}) STORED,
         ADD COLUMN all_vec tsvector NOT NULL DEFAULT ''::tsvector;
       CREATE TABLE vocabulary (word text COLLATE "C" PRIMARY KEY, rev bigint NOT NULL);
       CREATE INDEX vocabulary_by_rev ON vocabulary (rev);`,
    );
    type Texts = { seq: number; term: string; definition: string };
    await inBatches<Texts>(client, 'term, definition', '', async (rows) => {
      const names = rows.map((row) => wordsOf(decodeNul(row.term)).join(' '));
      const definitions = rows.map((row) => wordsOf(decodeNul(row.definition)).join(' '));
      await client.query(
        `UPDATE terms t SET name_words = u.name_words, all_vec = ${ALL_VECTOR('u.name_words', 'u.definition_words')}
         FROM unnest($1::bigint[], $2::text[], $3::text[]) AS u (seq, name_words, definition_words)
         WHERE t.seq = u.seq`,
        [rows.map((row) => row.seq), names, definitions],
      );
      const words = new Set(
        [...names, ...definitions].flatMap((text) => (text ? text.split(' ') : [])),
      );
      await client.query(
        `INSERT INTO vocabulary (word, rev) SELECT word, 0 FROM unnest($1::text[]) word
         ON CONFLICT (word) DO NOTHING`,
        [[...words].filter(typoCandidate)],
      );
    });
    // A GIN index takes new entries into a pending list that every search then scans; the
    // default 4 MB list, after a bulk import, made a selective search several times slower,
    // while 64 kB costs bulk imports little (docs/performance.md).
    await client.query(
      `CREATE INDEX terms_by_name_words ON terms (name_words, seq);
       CREATE INDEX terms_name_words ON terms USING gin (name_vec)
         WITH (gin_pending_list_limit = 64);
       CREATE INDEX terms_all_words ON terms USING gin (all_vec)
         WITH (gin_pending_list_limit = 64);
       ALTER INDEX terms_term_trigrams SET (gin_pending_list_limit = 64);`,
    );
  },
  // 4: capital sharp s ẞ folds to ss, as ß does (fold-case.ts; it folded to ß before), as
  // SQLite's migration 5: the terms holding one get their folded name and words again, and
  // the revision moves on so that no ETag taken before answers for a search that finds more.
  async (client) => {
    const { rows } = await client.query<{ seq: number; term: string; definition: string }>(
      `SELECT seq, term, definition FROM terms
       WHERE strpos(term, 'ẞ') > 0 OR strpos(definition, 'ẞ') > 0`,
    );
    const names = rows.map((row) => wordsOf(decodeNul(row.term)).join(' '));
    const definitions = rows.map((row) => wordsOf(decodeNul(row.definition)).join(' '));
    await client.query(
      `UPDATE terms t SET term_folded = u.term_folded, name_words = u.name_words,
         all_vec = ${ALL_VECTOR('u.name_words', 'u.definition_words')}
       FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[])
         AS u (seq, term_folded, name_words, definition_words)
       WHERE t.seq = u.seq`,
      [
        rows.map((row) => row.seq),
        rows.map((row) => encodeNul(foldCase(decodeNul(row.term)))),
        names,
        definitions,
      ],
    );
    const words = new Set(
      [...names, ...definitions].flatMap((text) => (text ? text.split(' ') : [])),
    );
    await client.query(
      `INSERT INTO vocabulary (word, rev) SELECT word, 0 FROM unnest($1::text[]) word
       ON CONFLICT (word) DO NOTHING`,
      [[...words].filter(typoCandidate)],
    );
    await client.query('UPDATE glossary_revision SET value = value + 1 WHERE slot = 0');
  },
  // 5: the change log that keeps counts exact without counting again (kept-counts.ts). Every
  // statement that changes `terms` notes, under its transaction's id, the filtered columns of
  // each row it changed: the row as it was (sign -1) and as it is now (sign +1); a statement
  // of more than CHANGES_LISTED rows (a bulk import) notes only that counts must be taken
  // again (sign 0). Triggers, not the store's code, write it, so no path can change a term
  // unnoted. `term_change_horizons` holds what pruning the log needs (kept-counts.ts).
  `CREATE TABLE term_changes (
     xid         xid8     NOT NULL DEFAULT pg_current_xact_id(),
     sign        smallint NOT NULL CHECK (sign IN (-1, 0, 1)),
     category    text,
     term_folded text     COLLATE "C",
     name_words  text     COLLATE "C",
     name_vec    tsvector,
     all_vec     tsvector
   );
   CREATE INDEX term_changes_by_xid ON term_changes (xid);
   CREATE TABLE term_change_horizons (at timestamptz NOT NULL, oldest xid8 NOT NULL);
   CREATE ${noteTermChanges('category, term_folded, name_words, name_vec, all_vec')}
   CREATE TRIGGER terms_inserted AFTER INSERT ON terms REFERENCING NEW TABLE AS new_rows
     FOR EACH STATEMENT EXECUTE FUNCTION note_term_changes();
   CREATE TRIGGER terms_updated AFTER UPDATE ON terms
     REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
     FOR EACH STATEMENT EXECUTE FUNCTION note_term_changes();
   CREATE TRIGGER terms_deleted AFTER DELETE ON terms REFERENCING OLD TABLE AS old_rows
     FOR EACH STATEMENT EXECUTE FUNCTION note_term_changes();
   CREATE TRIGGER terms_truncated AFTER TRUNCATE ON terms
     FOR EACH STATEMENT EXECUTE FUNCTION note_term_changes();`,
  // 6: slow counts kept for every instance (kept-counts.ts). Unlogged: a cache, emptied by a
  // crash, that costs no WAL to write. `key` is the counting SQL's conditions and values;
  // `started`, when the server that took the count started (its transaction ids are that
  // server's: a copy restored elsewhere must not carry the count on).
  `CREATE UNLOGGED TABLE kept_counts (
     key      text    PRIMARY KEY,
     count    integer NOT NULL,
     snapshot text    NOT NULL,
     at       float8  NOT NULL,
     started  float8  NOT NULL
   );`,
  // 7: as SQLite's migration 8, two changes of how text is kept.
  // The folded name is in Unicode's composed form (NFC, fold-case.ts): only a name with a
  // character beyond ASCII (more bytes than characters) can fold differently; those that do
  // are folded again, and then the revision moves on.
  // The vocabulary follows the glossary's content (vocabulary.ts): it becomes exactly the typo
  // words of the live terms, as `all_vec` holds them (`ts_stat` lists each lexeme once); a
  // removal stays, numbered like an addition, until `removed_at` is old enough to purge, and
  // `vocabulary_state.purged` is the highest number purged.
  async (client) => {
    const refolded = await refoldNames(client);
    if (refolded > 0) {
      await client.query('UPDATE glossary_revision SET value = value + 1 WHERE slot = 0');
    }
    await client.query(
      `ALTER TABLE vocabulary ADD COLUMN removed_at timestamptz;
       CREATE INDEX vocabulary_removed ON vocabulary (removed_at) WHERE removed_at IS NOT NULL;
       CREATE TABLE vocabulary_state (purged bigint NOT NULL);
       INSERT INTO vocabulary_state (purged) VALUES (-1);
       CREATE TEMP TABLE live_words ON COMMIT DROP AS
         SELECT word COLLATE "C" AS word FROM ts_stat('SELECT all_vec FROM terms');
       DELETE FROM vocabulary v WHERE NOT EXISTS (SELECT 1 FROM live_words l WHERE l.word = v.word);`,
    );
    // Numbers and words too short or long for a typo are left out before they are sent.
    const { rows } = await client.query<{ word: string }>(
      `SELECT word FROM live_words l
       WHERE char_length(word) BETWEEN 3 AND ${MAX_TYPO_WORD + 2} AND word !~ '^[0-9]+$'
         AND NOT EXISTS (SELECT 1 FROM vocabulary v WHERE v.word = l.word)`,
    );
    await client.query(
      `INSERT INTO vocabulary (word, rev)
       SELECT w, (SELECT coalesce(max(rev), 0) + 1 FROM vocabulary) FROM unnest($1::text[]) w`,
      [rows.map((row) => row.word).filter(typoCandidate)],
    );
  },
  // 8: other names of a term (TermStore rule 8, other-names.ts), as SQLite's migration 9.
  // `aliases` and `avoid` are JSON arrays (each entry NUL-encoded, nul-text.ts), NULL when
  // the term has none. For `q`: `name_words` stays the name's key; `alias_words` holds each
  // alias's key (its words, words.ts, joined by single spaces) joined by line feeds, so the
  // row itself says whether an alias is, or starts with, the query (`ALIAS_KEYS`, term-rows.ts,
  // with a GIN index: conditions are also evaluated on `term_changes`, where no other table
  // can be joined); `avoid_words` holds the words of every name to avoid, joined by single
  // spaces; `name_vec` now holds the lexemes of name and aliases (a generated
  // column cannot change its expression before PostgreSQL 17: it is made again, and its
  // index with it), `all_vec` those of name, aliases, definition and names to avoid (written
  // by the store), and the new `avoid_vec` those of the names to avoid. `term_changes` logs
  // the new columns too, so kept counts (kept-counts.ts) can evaluate conditions on them.
  // `term_names` has a row per name, alias and name to avoid of every live term: `fold`
  // (nameFold, NUL-encoded) is what the rule compares, through its index (`key`, nameKey, is
  // kept as SQLite keeps it; PostgreSQL's reads take the keys from the term's row); rows go
  // with their term's row (`seq`, through its own index). Every term stored before has no
  // other names: it is kept exactly as it was, and gets one row, its name's. The counts kept
  // so far are dropped: a count is carried on by evaluating its filter on `term_changes`, whose
  // rows logged before this migration lack the new columns.
  async (client) => {
    await client.query(
      `ALTER TABLE terms DROP COLUMN name_vec;
       ALTER TABLE terms
         ADD COLUMN aliases jsonb CHECK (aliases IS NULL OR jsonb_typeof(aliases) = 'array'),
         ADD COLUMN avoid jsonb CHECK (avoid IS NULL OR jsonb_typeof(avoid) = 'array'),
         ADD COLUMN alias_words text COLLATE "C" NOT NULL DEFAULT '',
         ADD COLUMN avoid_words text COLLATE "C" NOT NULL DEFAULT '',
         ADD COLUMN name_vec tsvector GENERATED ALWAYS AS (${NAMES_VECTOR}) STORED,
         ADD COLUMN avoid_vec tsvector GENERATED ALWAYS AS (${AVOID_VECTOR}) STORED;
       CREATE INDEX terms_name_words ON terms USING gin (name_vec)
         WITH (gin_pending_list_limit = 64);
       CREATE INDEX terms_avoid_words ON terms USING gin (avoid_vec)
         WITH (gin_pending_list_limit = 64);
       CREATE INDEX terms_alias_keys ON terms USING gin ((${ALIAS_KEYS}))
         WITH (gin_pending_list_limit = 64);
       DELETE FROM kept_counts;
       ALTER TABLE term_changes ADD COLUMN alias_words text COLLATE "C",
         ADD COLUMN avoid_words text COLLATE "C", ADD COLUMN avoid_vec tsvector;
       CREATE OR REPLACE ${noteTermChanges(`category, term_folded, name_words, name_vec, all_vec,
                                     alias_words, avoid_words, avoid_vec`)}
       CREATE TABLE term_names (
         seq  bigint NOT NULL,
         kind text   NOT NULL CHECK (kind IN ('term', 'aliases', 'avoid')),
         fold text   COLLATE "C" NOT NULL,
         key  text   COLLATE "C" NOT NULL
       );`,
    );
    await fillTermNames(client);
    await client.query(
      `CREATE INDEX term_names_by_fold ON term_names (fold);
       CREATE INDEX term_names_by_seq ON term_names (seq);`,
    );
  },
  // 9: the change feed and webhooks (as SQLite's migration 10). The feed reads every
  // creation still kept only on its `terms` row by `created_rev` (feed.ts); `term_history` is
  // read through its primary key. `term_revision` keeps CACHE 1, its default: a session that
  // cached revisions could hand one out after the feed read a higher `last_value`, which
  // feed.ts's horizon rules out. `webhooks` holds the endpoints with their delivery progress
  // and lease (webhooks.ts); `webhook_deliveries` their recent attempts, `n` their order.
  // `feed_horizon` is the highest horizon any instance has settled (feed.ts), so that an
  // instance just started answers up to it at once.
  `CREATE INDEX terms_by_created_rev ON terms (created_rev);
   CREATE TABLE feed_horizon (one boolean PRIMARY KEY CHECK (one), value bigint NOT NULL);
   INSERT INTO feed_horizon VALUES (true, 0);
   CREATE TABLE webhooks (
     id                    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     name                  text   NOT NULL UNIQUE,
     url                   text   NOT NULL,
     types                 jsonb  NOT NULL CHECK (jsonb_typeof(types) = 'array'),
     secret                text   NOT NULL,
     previous_secret       text,
     previous_secret_until bigint,
     created_at            bigint NOT NULL,
     cursor                bigint NOT NULL,
     state                 text   NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'disabled')),
     disabled_reason       text,
     attempts              integer NOT NULL DEFAULT 0,
     next_attempt_at       bigint,
     lease_owner           text,
     lease_until           bigint
   );
   CREATE TABLE webhook_deliveries (
     webhook_id  bigint  NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
     n           bigint  GENERATED ALWAYS AS IDENTITY,
     revision    bigint  NOT NULL,
     at          bigint  NOT NULL,
     status      integer,
     error       text,
     duration_ms float8  NOT NULL,
     PRIMARY KEY (webhook_id, n)
   );`,
  // 10: links, for `links_to` (the terms whose `see_also` holds an id) and the warnings of
  // writes: a GIN index of `see_also` (jsonb_path_ops: containment only, a hash per element),
  // asked with `see_also @> '[id]'`. The row itself says whether it links, so the condition
  // holds on `term_changes` too: the log gets `see_also`, and kept counts of `links_to` carry
  // on across writes as the others do (no count of it was kept before this step).
  `CREATE INDEX terms_see_also ON terms USING gin (see_also jsonb_path_ops)
     WITH (gin_pending_list_limit = 64);
   ALTER TABLE term_changes ADD COLUMN see_also jsonb;
   CREATE OR REPLACE ${noteTermChanges(`category, term_folded, name_words, name_vec, all_vec,
                                 alias_words, avoid_words, avoid_vec, see_also`)}`,
  // 11: the search indexes' pending lists take their limit from the connection, not from the
  // index, which would override it: the service's connections keep them at 64 kB (pool.ts),
  // and a bulk import lets its transaction fill them to 4 MB and empties them before it
  // commits (bulk-import.ts), at about half the cost of emptying them every 64 kB. The table
  // is locked first: each ALTER INDEX takes its index's strongest lock, and a query planned
  // meanwhile locks the indexes in another order (a deadlock, reproduced under reads).
  `LOCK TABLE terms IN ACCESS EXCLUSIVE MODE;
   ALTER INDEX terms_name_words RESET (gin_pending_list_limit);
   ALTER INDEX terms_all_words RESET (gin_pending_list_limit);
   ALTER INDEX terms_avoid_words RESET (gin_pending_list_limit);
   ALTER INDEX terms_alias_keys RESET (gin_pending_list_limit);
   ALTER INDEX terms_term_trigrams RESET (gin_pending_list_limit);
   ALTER INDEX terms_see_also RESET (gin_pending_list_limit);`,
  // 12: the log notes each row's `seq`, its place in creation order, which orders the terms
  // of a ranking's level: a first page kept by a process is carried across the changes that
  // come after its last term (ranking-reads.ts). Rows logged before this step have none, and
  // a page carried across one of them is read again.
  `ALTER TABLE term_changes ADD COLUMN seq bigint;
   CREATE OR REPLACE ${noteTermChanges(`category, term_folded, name_words, name_vec, all_vec,
                                 alias_words, avoid_words, avoid_vec, see_also, seq`)}`,
];

/** How many rows `glossary_revision` has; a write bumps one of them. */
export const REVISION_SLOTS = 16;
