import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import pg from 'pg';
import type { TermStore } from '../../src/glossary/term-store.ts';
import { typoCandidate, wordsOf } from '../../src/glossary/words.ts';
import { buildApp } from '../../src/http/app.ts';
import { SchemaError } from '../../src/store/errors.ts';
import { openStore } from '../../src/store/open-store.ts';
import { noteTermChanges } from '../../src/store/postgres/change-log-trigger.ts';
import { checkServer } from '../../src/store/postgres/migrate.ts';
import { MIGRATIONS } from '../../src/store/postgres/migrations.ts';
import { TEST_CONFIG } from '../helpers/app.ts';
import { admin, backends, type Location, wholeHistory } from '../helpers/backends.ts';

/** The PostgreSQL schema's versioning (skipped with the postgres backend). */

/** SQL that makes a current database look as it did before migration 12 logged `seq`. */
const asBeforeLoggedSeq = `CREATE OR REPLACE ${noteTermChanges(`category, term_folded, name_words, name_vec,
                                all_vec, alias_words, avoid_words, avoid_vec, see_also`)}
  ALTER TABLE term_changes DROP COLUMN seq;`;

/** SQL that makes a current database look as it did before migration 10 indexed the links. */
const asBeforeLinks = `${asBeforeLoggedSeq}
  DROP INDEX terms_see_also;
  CREATE OR REPLACE ${noteTermChanges(`category, term_folded, name_words, name_vec, all_vec,
                                alias_words, avoid_words, avoid_vec`)}
  ALTER TABLE term_changes DROP COLUMN see_also;`;

/** SQL that makes a current database look as it did before migration 9. */
const asBeforeFeed = `${asBeforeLinks}
  DROP TABLE webhook_deliveries; DROP TABLE webhooks; DROP TABLE feed_horizon;
  DROP INDEX terms_by_created_rev;`;

/**
 * SQL that makes a current database look as it did before migration 8 stored other names:
 * `name_vec` of the name alone, no `aliases`, `avoid`, their words or `term_names`, and the
 * change log of migration 5.
 */
const asBeforeOtherNames = `${asBeforeFeed}
  DROP TABLE term_names;
  ALTER TABLE terms DROP COLUMN avoid_vec, DROP COLUMN name_vec, DROP COLUMN aliases,
    DROP COLUMN avoid, DROP COLUMN alias_words, DROP COLUMN avoid_words;
  ALTER TABLE terms ADD COLUMN name_vec tsvector
    GENERATED ALWAYS AS (array_to_tsvector(string_to_array(name_words, ' '))) STORED;
  CREATE INDEX terms_name_words ON terms USING gin (name_vec) WITH (gin_pending_list_limit = 64);
  ALTER TABLE term_changes DROP COLUMN alias_words, DROP COLUMN avoid_words,
    DROP COLUMN avoid_vec;
  CREATE OR REPLACE FUNCTION note_term_changes() RETURNS trigger LANGUAGE plpgsql AS $$
  DECLARE
    changed bigint := 0;
  BEGIN
    IF TG_OP = 'TRUNCATE' THEN
      changed := 65;
    ELSIF TG_OP = 'INSERT' THEN
      SELECT count(*) INTO changed FROM new_rows;
    ELSE
      SELECT count(*) INTO changed FROM old_rows;
    END IF;
    IF changed > 64 THEN
      INSERT INTO term_changes (sign) VALUES (0);
      RETURN NULL;
    END IF;
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
      INSERT INTO term_changes (sign, category, term_folded, name_words, name_vec, all_vec)
      SELECT -1, category, term_folded, name_words, name_vec, all_vec FROM old_rows;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
      INSERT INTO term_changes (sign, category, term_folded, name_words, name_vec, all_vec)
      SELECT 1, category, term_folded, name_words, name_vec, all_vec FROM new_rows;
    END IF;
    RETURN NULL;
  END $$;`;

/** SQL that makes a current database look as it did before migration 7. */
const asBeforeComposedNames = `${asBeforeOtherNames}
  ALTER TABLE vocabulary DROP COLUMN removed_at;
  DROP TABLE vocabulary_state;`;

/** A term of that name, as the upgrade tests below store it. */
const term = (id: number, name: string) => ({
  id,
  term: name,
  definition: 'D.',
  category: 'backend' as const,
  see_also: [],
});

const postgres = backends().find((backend) => backend.name === 'postgres');

async function sql<R extends pg.QueryResultRow>(url: string, text: string): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query<R>(text)).rows;
  } finally {
    await client.end();
  }
}

if (postgres) {
  describe('PostgreSQL schema migrations', () => {
    const locations: Location[] = [];
    const fresh = async () => {
      const location = await postgres.location();
      locations.push(location);
      return location;
    };
    after(async () => {
      for (const location of locations) await location.dispose();
    });

    test('instances starting at once migrate a fresh database once, and all of them open it', async () => {
      const location = await fresh();
      const stores = await Promise.all(Array.from({ length: 4 }, () => location.open()));
      try {
        await stores[0]?.create({
          id: 1,
          term: 'Lock',
          definition: 'Held while migrating.',
          category: 'backend',
          see_also: [],
        });
        for (const store of stores) assert.equal((await store.get(1))?.term, 'Lock');
      } finally {
        for (const store of stores) await store.close();
      }
      const versions = await sql<{ version: number }>(
        location.url,
        'SELECT version FROM schema_version',
      );
      assert.deepEqual(versions, [{ version: MIGRATIONS.length }]);
      const indexes = await sql<{ indexname: string }>(
        location.url,
        `SELECT indexname FROM pg_indexes WHERE tablename = 'terms' ORDER BY indexname`,
      );
      assert.deepEqual(
        indexes.map((row) => row.indexname),
        [
          'terms_alias_keys',
          'terms_all_words',
          'terms_avoid_words',
          'terms_by_category',
          'terms_by_created_rev',
          'terms_by_id',
          'terms_by_name_words',
          'terms_by_term',
          'terms_name_words',
          'terms_pkey',
          'terms_see_also',
          'terms_term_trigrams',
        ],
      );
    });

    test('a database with a newer schema is refused with a clear message and left alone', async () => {
      const location = await fresh();
      await (await location.open()).close();
      await sql(location.url, `UPDATE schema_version SET version = ${MIGRATIONS.length + 1}`);
      await assert.rejects(location.open(), (error: Error) => {
        assert.ok(error instanceof SchemaError);
        assert.match(
          error.message,
          new RegExp(
            `has schema version ${MIGRATIONS.length + 1}, newer than this release knows \\(${MIGRATIONS.length}\\); run a newer release`,
          ),
        );
        assert.ok(error.message.includes(new URL(location.url).pathname.slice(1)), 'names it');
        return true;
      });
      const versions = await sql<{ version: number }>(
        location.url,
        'SELECT version FROM schema_version',
      );
      assert.deepEqual(versions, [{ version: MIGRATIONS.length + 1 }]);
    });

    test('a database that is not UTF8 is refused with a clear message and left empty', async () => {
      const server = new URL((await fresh()).url);
      const name = `glossary_test_ascii_${process.pid}`;
      server.pathname = '/postgres';
      await admin(
        server.toString(),
        `CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C'`,
      );
      const url = new URL(server);
      url.pathname = `/${name}`;
      try {
        await assert.rejects(
          openStore({
            database: { kind: 'postgres', url: url.toString() },
            sqliteSynchronous: 'full',
            pgPoolSize: 1,
          }),
          (error: Error) => {
            assert.ok(error instanceof SchemaError);
            assert.match(
              error.message,
              /has encoding SQL_ASCII; the glossary needs a UTF8 database/,
            );
            return true;
          },
        );
        const tables = await sql(
          url.toString(),
          `SELECT 1 FROM pg_tables WHERE schemaname = 'public'`,
        );
        assert.deepEqual(tables, [], 'nothing was created');
      } finally {
        await admin(server.toString(), `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      }
    });

    // No PostgreSQL 12 runs here: the rule is checked on the settings such a server reports,
    // and every other test opens the real server through it.
    test('a server older than PostgreSQL 13 is refused by its version number', () => {
      const utf8 = (version: string, number: string) => ({ encoding: 'UTF8', version, number });
      assert.throws(
        () => checkServer(utf8('12.22 (Debian 12.22-1)', '120022'), 'db'),
        (error: Error) =>
          error instanceof SchemaError &&
          error.message ===
            'db runs PostgreSQL 12.22 (Debian 12.22-1); the glossary needs PostgreSQL 13 or newer',
      );
      assert.doesNotThrow(() => checkServer(utf8('13.0', '130000'), 'db'));
      assert.doesNotThrow(() => checkServer(utf8('18.1', '180001'), 'db'));
    });

    test('a database holding a "terms" table of another application is refused', async () => {
      const location = await fresh();
      await sql(location.url, 'CREATE TABLE terms (name text)');
      await assert.rejects(location.open(), /has a table "terms" that this service did not create/);
      const tables = await sql<{ table_name: string }>(
        location.url,
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`,
      );
      assert.deepEqual(tables, [{ table_name: 'terms' }], 'nothing was created');
    });

    test('a store reopened on its database keeps its terms and migrates nothing again', async () => {
      const location = await fresh();
      let store: TermStore = await location.open();
      await store.importMany([
        { id: 5, term: 'Kept', definition: 'Across opens.', category: 'devops', see_also: [1] },
      ]);
      await store.close();
      store = await location.open();
      try {
        assert.deepEqual(await store.get(5), {
          id: 5,
          term: 'Kept',
          definition: 'Across opens.',
          category: 'devops',
          see_also: [1],
        });
      } finally {
        await store.close();
      }
    });

    test('terms stored at schema version 1 keep their order, ids and counts, and can be edited', async () => {
      const location = await fresh();
      await sql(
        location.url,
        `CREATE TABLE schema_version (version integer NOT NULL);
         INSERT INTO schema_version VALUES (1);
         ${MIGRATIONS[0]}
         INSERT INTO terms (id, term, term_folded, definition, category, see_also) VALUES
           (5, 'Old 5', 'old 5', 'D.', 'backend', '[]'),
           (3, 'Old 3', 'old 3', 'D.', 'backend', '[]'),
           (5, 'Old 5 again', 'old 5 again', 'D.', 'backend', '[]');
         INSERT INTO term_ids (id) VALUES (5), (3);`,
      );
      const store = await location.open();
      try {
        const listed: number[] = [];
        for await (const chunk of store.list({})) listed.push(...chunk.map((t) => t.id));
        assert.deepEqual(listed, [5, 3, 5]);
        assert.deepEqual(
          (await wholeHistory(store, 3)).map((entry) => [entry.action, entry.term.term]),
          [['created', 'Old 3']],
        );
        await store.update(3, (t) => ({ ...t, term: 'New 3' }), { by: 'me', at: 1 });
        assert.equal((await store.get(3))?.term, 'New 3');
        // Two live terms had id 5: removing one leaves the id taken, removing both frees it.
        const five = {
          id: 5,
          term: 'N',
          definition: 'D.',
          category: 'backend' as const,
          see_also: [],
        };
        await store.remove(5, () => undefined, { by: null, at: 2 });
        assert.deepEqual(await store.importMany([five]), ['exists']);
        await store.remove(5, () => undefined, { by: null, at: 3 });
        assert.deepEqual(await store.importMany([five]), ['created']);
        const [newest] = await wholeHistory(store, 5);
        const [created] = (await wholeHistory(store, 3)).slice(-1);
        assert.ok(
          (newest?.revision ?? 0) > (created?.revision ?? 0),
          'new revisions follow the old',
        );
      } finally {
        await store.close();
      }
    });

    test('terms with ẞ stored when it folded to ß are found as ss after the upgrade', async () => {
      const location = await fresh();
      const before = await location.open();
      await before.importMany([
        {
          id: 1,
          term: 'HAUPTSTRAẞE',
          definition: 'Eine GROẞE Straße.',
          category: 'backend',
          see_also: [],
        },
        { id: 2, term: 'Term 2', definition: 'D.', category: 'backend', see_also: [] },
      ]);
      await before.close();
      // What schema version 3 stored for it: ẞ folded to ß (Straße folded to strasse already).
      // Version 3 had no change log (migration 5) nor kept counts (6): the upgrade creates them.
      await sql(
        location.url,
        `${asBeforeComposedNames}
         DROP TABLE term_changes, term_change_horizons, kept_counts;
         DROP FUNCTION note_term_changes() CASCADE;
         UPDATE terms SET term_folded = 'hauptstraße', name_words = 'hauptstraße',
           all_vec = array_to_tsvector('{hauptstraße,eine,große,strasse}') WHERE id = 1;
         UPDATE schema_version SET version = 3;`,
      );
      const store = await location.open();
      const app = await buildApp({ config: TEST_CONFIG, store, logger: false });
      try {
        const ids = async (query: string) =>
          ((await app.inject(`/terms?${query}`)).json() as { id: number }[]).map((t) => t.id);
        assert.deepEqual(await ids('search=hauptstrasse'), [1]);
        assert.deepEqual(await ids('q=hauptstrasse'), [1]);
        assert.deepEqual(await ids('q=grosse'), [1]);
        assert.deepEqual(await ids('sort=term&limit=1'), [1], 'hauptstrasse sorts first');
        // Counts kept across a write by the change log the upgrade created.
        const total = async (query: string) =>
          (await app.inject(`/terms?${query}&limit=1`)).headers['x-total-count'];
        assert.equal(await total('q=grosse'), '1');
        await store.create({
          id: 3,
          term: 'Grosse Pause',
          definition: 'D.',
          category: 'backend',
          see_also: [],
        });
        assert.equal(await total('q=grosse'), '2');
        const [version] = await sql<{ version: number }>(
          location.url,
          'SELECT version FROM schema_version',
        );
        assert.equal(version?.version, MIGRATIONS.length);
      } finally {
        await app.close();
        await store.close();
      }
    });

    test('names stored decomposed are found by composed patterns after the upgrade (migration 7)', async () => {
      const location = await fresh();
      const nfd = 'Café Crème'.normalize('NFD');
      const before = await location.open();
      await before.importMany([
        term(1, nfd),
        term(2, 'Cafe'),
        term(3, 'Crème brûlée'.normalize('NFC')),
      ]);
      await before.close();
      // What schema version 6 stored: the name folded in case only, decomposed text stayed so.
      await sql(
        location.url,
        `UPDATE terms SET term_folded = '${nfd.toLowerCase()}' WHERE id = 1;
         ${asBeforeComposedNames}
         UPDATE schema_version SET version = 6;`,
      );
      const store = await location.open();
      const app = await buildApp({ config: TEST_CONFIG, store, logger: false });
      try {
        const search = async (text: string) =>
          (
            (await app.inject(`/terms?search=${encodeURIComponent(text)}`)).json() as {
              id: number;
            }[]
          ).map((t) => t.id);
        assert.deepEqual(await search('café'.normalize('NFC')), [1]);
        assert.deepEqual(await search('CAFÉ CRÈME'.normalize('NFD')), [1]);
        assert.deepEqual(await search('crème'.normalize('NFD')), [1, 3]);
        assert.deepEqual(await search('cafe'), [2], 'a bare e is not é');
      } finally {
        await app.close();
        await store.close();
      }
    });

    test('the vocabulary becomes exactly the typo words of the live terms (migration 7)', async () => {
      const location = await fresh();
      const term = (id: number, name: string, definition: string) => ({
        id,
        term: name,
        definition,
        category: 'backend' as const,
        see_also: [],
      });
      const before = await location.open();
      await before.importMany([
        term(1, 'Sharding', 'Splitting rows across partitions.'),
        term(2, 'Replica', 'A copy kept elsewhere, 42 times.'),
      ]);
      await before.close();
      // What an earlier release left: words of terms long changed, and (a write rolled back
      // after its words were known in memory) a live word missing.
      await sql(
        location.url,
        `${asBeforeComposedNames}
         INSERT INTO vocabulary (word, rev) VALUES ('shardng', 1), ('obsolete', 2);
         DELETE FROM vocabulary WHERE word = 'partitions';
         UPDATE schema_version SET version = 6;`,
      );
      const store = await location.open();
      try {
        assert.deepEqual(await store.similarWords('partitons', 1), ['partitions']);
        assert.deepEqual(await store.similarWords('obsolet', 1), []);
        const live = new Set<string>();
        for await (const chunk of store.list({})) {
          for (const t of chunk) {
            for (const word of [...wordsOf(t.term), ...wordsOf(t.definition)]) {
              if (typoCandidate(word)) live.add(word);
            }
          }
        }
        const rows = await sql<{ word: string }>(
          location.url,
          'SELECT word FROM vocabulary WHERE removed_at IS NULL',
        );
        assert.deepEqual(rows.map((row) => row.word).sort(), [...live].sort());
      } finally {
        await store.close();
      }
    });

    test('terms and history stored before migration 8 read back identically, and their names are indexed', async () => {
      const location = await fresh();
      const term = (id: number, name: string, definition: string) => ({
        id,
        term: name,
        definition,
        category: 'backend' as const,
        see_also: [],
      });
      const before = await location.open();
      await before.importMany([
        term(1, 'Kubernetes', 'Runs containers.'),
        term(2, 'Crème  Brûlée', 'A dessert.'),
        term(3, 'Gone', 'Removed before.'),
        term(4, 'Nul\u0000name', 'Odd.'),
      ]);
      await before.update(2, (t) => ({ ...t, definition: 'A French dessert.' }), { by: 'alice' });
      await before.remove(3, () => undefined, { by: 'bob' });
      const all = async (store: TermStore) => {
        const terms: unknown[] = [];
        for await (const chunk of store.list({})) terms.push(...chunk);
        return terms;
      };
      const terms = await all(before);
      const histories = await Promise.all([1, 2, 3, 4].map((id) => wholeHistory(before, id)));
      const revision = await before.revision();
      await before.close();
      await sql(location.url, `${asBeforeOtherNames} UPDATE schema_version SET version = 7;`);

      const store = await location.open();
      const app = await buildApp({ config: TEST_CONFIG, store, logger: false });
      try {
        assert.deepEqual(await all(store), terms);
        for (const [i, id] of [1, 2, 3, 4].entries()) {
          assert.deepEqual(await wholeHistory(store, id), histories[i]);
        }
        assert.equal(await store.revision(), revision, 'no content changed');
        const ids = async (query: string) =>
          ((await app.inject(`/terms?${query}`)).json() as { id: number }[]).map((t) => t.id);
        assert.deepEqual(await ids('q=kubernetes'), [1]);
        assert.deepEqual(await ids('q=bru'), [2]);
        assert.deepEqual(
          await sql(location.url, 'SELECT seq, kind, fold, key FROM term_names ORDER BY seq'),
          [
            { seq: '1', kind: 'term', fold: 'kubernetes', key: 'kubernetes' },
            { seq: '2', kind: 'term', fold: 'creme brulee', key: 'creme brulee' },
            { seq: '4', kind: 'term', fold: 'nul\u0001Aname', key: 'nul name' },
          ],
        );
        assert.deepEqual(
          await sql(
            location.url,
            `SELECT alias_words, avoid_words, aliases, avoid, name_vec::text, avoid_vec::text
             FROM terms WHERE id = 1`,
          ),
          [
            {
              alias_words: '',
              avoid_words: '',
              aliases: null,
              avoid: null,
              name_vec: "'kubernetes'",
              avoid_vec: '',
            },
          ],
        );
        // The terms stored before take part in the rule, and new terms carry other names.
        await assert.rejects(
          store.create({ ...term(5, 'Orchestrator', 'D.'), avoid: ['KUBERNETES', 'x'] }),
          /'KUBERNETES' is the name of term 1\./,
        );
        await assert.rejects(
          store.create({ ...term(5, 'Orchestrator', 'D.'), avoid: ['NUL\u0000NAME'] }),
          /is the name of term 4\./,
        );
        const named = { ...term(5, 'Orchestrator', 'D.'), aliases: ['K8s'], avoid: ['creme'] };
        await store.create(named);
        assert.deepEqual(await store.get(5), named);
        assert.deepEqual(await ids('q=k8s'), [5], 'an alias is a name for `q`');
      } finally {
        await app.close();
        await store.close();
      }
    });

    test('migration 10 indexes the links of the terms stored before it; counts follow writes', async () => {
      const location = await fresh();
      const term = (id: number, see_also: number[]) => ({
        id,
        term: `Term ${id}`,
        definition: 'D.',
        category: 'backend' as const,
        see_also,
      });
      const before = await location.open();
      await before.importMany([term(1, []), term(2, [1, 9]), term(3, [1, 2])]);
      await before.close();
      await sql(location.url, `${asBeforeLinks} UPDATE schema_version SET version = 9;`);

      const store = await location.open();
      try {
        const linking = async (id: number) => {
          const ids: number[] = [];
          for await (const chunk of store.list({ linksTo: id }))
            ids.push(...chunk.map((t) => t.id));
          return ids;
        };
        assert.deepEqual(await linking(1), [2, 3]);
        assert.deepEqual(await linking(9), [2]);
        assert.equal(await store.count({ linksTo: 1 }), 2);
        await store.update(2, (t) => ({ ...t, see_also: [] }), { by: null });
        assert.deepEqual(await linking(1), [3]);
        assert.equal(await store.count({ linksTo: 1 }), 1, 'the change log carries the count');
        const indexes = await sql<{ indexname: string }>(
          location.url,
          `SELECT indexname FROM pg_indexes WHERE indexname = 'terms_see_also'`,
        );
        assert.equal(indexes.length, 1);
      } finally {
        await store.close();
      }
    });

    test('migration 12 logs the seq of each changed row; rows logged before it have none', async () => {
      const location = await fresh();
      const before = await location.open();
      await before.importMany([term(1, 'Cache'), term(2, 'Cache line')]);
      await before.close();
      await sql(location.url, `${asBeforeLoggedSeq} UPDATE schema_version SET version = 11;`);
      await sql(location.url, `UPDATE terms SET definition = 'Before.' WHERE id = 1`);

      const store = await location.open();
      const app = await buildApp({ config: TEST_CONFIG, store, logger: false });
      try {
        const page = async () =>
          ((await app.inject('/terms?q=cache&limit=1')).json() as { id: number }[]).map(
            (t) => t.id,
          );
        assert.deepEqual(await page(), [1]);
        await store.update(1, (t) => ({ ...t, term: 'Cached' }), { by: null });
        await store.create(term(3, 'Cache'));
        assert.deepEqual(await page(), [3], 'the page follows the writes');
        const logged = await sql<{ sign: number; seq: string | null }>(
          location.url,
          'SELECT sign, seq FROM term_changes ORDER BY xid, sign',
        );
        const seqs = await sql<{ id: number; seq: string }>(
          location.url,
          'SELECT id::int, seq FROM terms ORDER BY id',
        );
        const seqOf = (id: number) => seqs.find((row) => row.id === id)?.seq;
        assert.deepEqual(
          logged.slice(-5).map((row) => [row.sign, row.seq]),
          [
            [-1, null], // logged before the migration
            [1, null],
            [-1, seqOf(1)],
            [1, seqOf(1)],
            [1, seqOf(3)],
          ],
        );
      } finally {
        await app.close();
      }
    });
  });
}
