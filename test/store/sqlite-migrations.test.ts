import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import type { TermStore } from '../../src/glossary/term-store.ts';
import { typoCandidate, wordsOf } from '../../src/glossary/words.ts';
import { buildApp } from '../../src/http/app.ts';
import { SchemaError } from '../../src/store/errors.ts';
import { openSqlite } from '../../src/store/sqlite/driver.ts';
import {
  APPLICATION_ID,
  MIGRATIONS,
  registerWordFunctions,
} from '../../src/store/sqlite/migrations.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { sampleTerm, TEST_CONFIG } from '../helpers/app.ts';
import { tempDir, wholeHistory } from '../helpers/backends.ts';

type Term = ReturnType<typeof sampleTerm> & { category: 'backend'; see_also: number[] };
const term = (id: number, overrides: Record<string, unknown> = {}) =>
  sampleTerm(id, overrides) as Term;

async function listAll(store: TermStore): Promise<unknown[]> {
  const all: unknown[] = [];
  for await (const chunk of store.list({})) all.push(...chunk);
  return all;
}

function pragmas(file: string) {
  const db = openSqlite(file, { readonly: true });
  try {
    return {
      userVersion: db.pragma('user_version', { simple: true }),
      applicationId: db.pragma('application_id', { simple: true }),
      journalMode: db.pragma('journal_mode', { simple: true }),
    };
  } finally {
    db.close();
  }
}

/** Every file of the database folder with a digest of its bytes. */
function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(
    fs
      .readdirSync(dir)
      .sort()
      .map((name) => [
        name,
        createHash('sha256')
          .update(fs.readFileSync(path.join(dir, name)))
          .digest('hex'),
      ]),
  );
}

function refusesUntouched(file: string, reason: RegExp): void {
  const dir = path.dirname(file);
  const before = snapshot(dir);
  assert.throws(
    () => openSqliteStore(file),
    (error: Error) => {
      assert.match(error.message, reason);
      assert.ok(error.message.includes(file), `"${error.message}" names the file`);
      return true;
    },
  );
  assert.deepEqual(snapshot(dir), before, 'the folder is byte-for-byte as it was');
}

/** Opens `file` (migrating it) behind the service and hands `check` the ids a query answers. */
async function throughTheService(
  file: string,
  check: (ids: (query: string) => Promise<number[]>) => Promise<void>,
): Promise<void> {
  const store = openSqliteStore(file);
  const app = await buildApp({ config: TEST_CONFIG, store, logger: false });
  try {
    await check(async (query) =>
      ((await app.inject(`/terms?${query}`)).json() as Term[]).map((term) => term.id),
    );
  } finally {
    await app.close();
    await store.close();
  }
}

/** Makes a current file look as it did before migration 11 listed the links. */
function asBeforeLinks(db: ReturnType<typeof openSqlite>): void {
  db.exec('DROP TABLE term_links');
}

/** Makes a current file look as it did before migration 10 added the feed's index and webhooks. */
function asBeforeChangeFeed(db: ReturnType<typeof openSqlite>): void {
  asBeforeLinks(db);
  db.exec(`DROP INDEX terms_by_created_rev;
    DROP TABLE webhook_deliveries;
    DROP TABLE webhooks;`);
}

/**
 * Makes a current file look as it did before migration 9 stored other names: no `aliases`,
 * `avoid` or `term_names`, and `terms_words` with its two columns, filled from the terms.
 */
function asBeforeOtherNames(db: ReturnType<typeof openSqlite>): void {
  asBeforeChangeFeed(db);
  registerWordFunctions(db);
  db.exec(`DROP TABLE term_names;
    DROP TABLE terms_words;
    CREATE VIRTUAL TABLE terms_words USING fts5(
      name_words, definition_words,
      content = '', contentless_delete = 1, tokenize = 'ascii', detail = column);
    INSERT INTO terms_words (rowid, name_words, definition_words)
      SELECT seq, glossary_words(term), glossary_words(definition) FROM terms;
    ALTER TABLE terms DROP COLUMN aliases;
    ALTER TABLE terms DROP COLUMN avoid;`);
}

/** Makes a current file look as it did before migration 8 made the words follow content. */
function asBeforeComposedNames(db: ReturnType<typeof openSqlite>): void {
  asBeforeOtherNames(db);
  db.exec(`DROP INDEX vocabulary_removed;
    ALTER TABLE vocabulary DROP COLUMN removed_at;
    DROP TABLE vocabulary_state;`);
}

/** Makes a current file look as it did before migration 7 counted terms for index upkeep. */
function asBeforeIndexUpkeep(db: ReturnType<typeof openSqlite>): void {
  asBeforeComposedNames(db);
  db.exec('DROP TABLE index_upkeep');
}

/** Makes a current file look as it did before migration 6 listed the indexed words. */
function asBeforeIndexedWords(db: ReturnType<typeof openSqlite>): void {
  asBeforeIndexUpkeep(db);
  db.exec(`DROP TABLE indexed_words;
    CREATE VIRTUAL TABLE terms_words_vocab USING fts5vocab(terms_words, 'row');`);
}

describe('SQLite schema migrations', () => {
  test('a new file, folder included, gets the current user_version, application_id and WAL', async () => {
    const file = path.join(tempDir(), 'nested', 'deeper', 'glossary.db');
    const store = openSqliteStore(file);
    await store.close();
    assert.deepEqual(pragmas(file), {
      userVersion: MIGRATIONS.length,
      applicationId: APPLICATION_ID,
      journalMode: 'wal',
    });
  });

  test('re-opening keeps every term, in creation order, and the schema as it was', async () => {
    const file = path.join(tempDir(), 'glossary.db');
    const first = openSqliteStore(file);
    await first.create(term(3));
    assert.deepEqual(await first.importMany([term(1), term(2)]), ['created', 'created']);
    await first.create(term(3, { term: 'again' }));
    const written = await listAll(first);
    await first.close();

    const again = openSqliteStore(file);
    try {
      assert.deepEqual(await listAll(again), written);
      assert.deepEqual(
        written.map((t) => (t as Term).id),
        [3, 1, 2, 3],
      );
      assert.deepEqual(await again.get(3), term(3));
      assert.deepEqual(await again.importMany([term(1), term(4)]), ['exists', 'created']);
    } finally {
      await again.close();
    }
    assert.equal(pragmas(file).userVersion, MIGRATIONS.length);
  });

  test('a file written by a newer release is refused with a clear message and left untouched', async () => {
    const file = path.join(tempDir(), 'glossary.db');
    const store = openSqliteStore(file);
    await store.create(term(1));
    await store.close();
    const db = openSqlite(file);
    db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    db.close();

    refusesUntouched(
      file,
      new RegExp(
        `has schema version ${MIGRATIONS.length + 1}, newer than this release knows \\(${MIGRATIONS.length}\\); run a newer release`,
      ),
    );
    assert.throws(() => openSqliteStore(file), SchemaError);
  });

  test('an SQLite file of another application (application_id 0, own tables) is refused untouched', () => {
    const file = path.join(tempDir(), 'other.db');
    const db = openSqlite(file);
    db.exec('CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)');
    db.exec('INSERT INTO invoices (total) VALUES (9.5)');
    db.close();
    // Still in rollback-journal mode: even switching it to WAL would change its header.
    assert.equal(pragmas(file).journalMode, 'delete');
    refusesUntouched(file, /is an SQLite database of another application/);
  });

  test('an SQLite file of another application that versions its schema too is refused untouched', () => {
    const file = path.join(tempDir(), 'other.db');
    const db = openSqlite(file);
    db.exec('CREATE TABLE terms (word TEXT)');
    db.pragma('user_version = 1');
    db.close();
    refusesUntouched(file, /is an SQLite database of another application/);
  });

  test('an SQLite file with another application_id is refused untouched, even without tables', () => {
    const file = path.join(tempDir(), 'other.db');
    const db = openSqlite(file);
    db.pragma('application_id = 1234');
    db.close();
    refusesUntouched(file, /belongs to another application \(application_id 1234\)/);
  });

  test('a file that is not an SQLite database is refused untouched', () => {
    const file = path.join(tempDir(), 'notes.db');
    fs.writeFileSync(file, 'these are my notes, not a database\n'.repeat(200));
    refusesUntouched(file, /not a database/);
  });
});

describe('SQLite upgrade to editing and history (migration 3)', () => {
  test('terms stored by an earlier release keep their order, get a creation entry and can be edited', async () => {
    const file = path.join(tempDir(), 'glossary.db');
    const db = openSqlite(file);
    db.pragma('journal_mode = WAL');
    for (const step of MIGRATIONS.slice(0, 2)) db.exec(step);
    db.pragma('user_version = 2');
    db.pragma(`application_id = ${APPLICATION_ID}`);
    const insert = db.prepare(
      `INSERT INTO terms (id, term, term_folded, definition, category, see_also)
       VALUES (?, ?, lower(?), ?, 'backend', '[]')`,
    );
    for (const id of [5, 3, 5]) {
      const row = insert.run(id, `Old ${id}`, `Old ${id}`, `Definition ${id}.`);
      db.prepare('INSERT INTO terms_fts (rowid, term_folded) VALUES (?, ?)').run(
        row.lastInsertRowid,
        `old ${id}`,
      );
    }
    db.close();

    const store = openSqliteStore(file);
    try {
      assert.deepEqual(
        (await listAll(store)).map((t) => (t as Term).id),
        [5, 3, 5],
      );
      const [created] = await wholeHistory(store, 3);
      assert.equal(created?.action, 'created');
      assert.equal(created?.term.term, 'Old 3');
      assert.ok((created?.at ?? 0) > 0);
      const revision = await store.revision();
      await store.update(3, (t) => ({ ...t, term: 'New 3' }), { by: 'me', at: 1 });
      assert.notEqual(await store.revision(), revision);
      assert.deepEqual(
        (await wholeHistory(store, 3)).map((entry) => entry.action),
        ['updated', 'created'],
      );
      assert.deepEqual(
        (await listAll(store)).map((t) => (t as Term).term),
        ['Old 5', 'New 3', 'Old 5'],
      );
      await store.remove(5, () => undefined, { by: null, at: 2 });
      assert.equal((await store.get(5))?.term, 'Old 5');
      assert.equal((await wholeHistory(store, 5)).length, 3, 'two creations and a deletion');
    } finally {
      await store.close();
    }
    assert.equal(pragmas(file).userVersion, MIGRATIONS.length);
  });

  test('terms with ẞ stored when it folded to ß are found as ss after the upgrade', async () => {
    const file = path.join(tempDir(), 'glossary.db');
    const before = openSqliteStore(file);
    await before.importMany([
      sampleTerm(1, { term: 'HAUPTSTRAẞE', definition: 'Eine GROẞE Straße.' }) as Term,
      sampleTerm(2) as Term,
    ]);
    await before.close();
    // What release 4 stored for it: ẞ folded to ß (Straße folded to strasse already).
    const db = openSqlite(file);
    const seq = db.prepare('SELECT seq FROM terms WHERE id = 1').pluck().get();
    db.prepare(
      `INSERT INTO terms_fts (terms_fts, rowid, term_folded)
       SELECT 'delete', seq, term_folded FROM terms WHERE seq = ?`,
    ).run(seq);
    db.prepare(
      "UPDATE terms SET term_folded = 'hauptstraße', name_key = 'hauptstraße' WHERE seq = ?",
    ).run(seq);
    db.prepare("INSERT INTO terms_fts (rowid, term_folded) VALUES (?, 'hauptstraße')").run(seq);
    db.prepare('DELETE FROM terms_words WHERE rowid = ?').run(seq);
    db.prepare(
      "INSERT INTO terms_words (rowid, name_words, definition_words) VALUES (?, 'hauptstraße', 'eine große strasse')",
    ).run(seq);
    asBeforeIndexedWords(db);
    db.pragma('user_version = 4');
    db.close();

    await throughTheService(file, async (ids) => {
      assert.deepEqual(await ids('search=hauptstrasse'), [1]);
      assert.deepEqual(await ids('q=hauptstrasse'), [1]);
      assert.deepEqual(await ids('q=grosse'), [1]);
      assert.deepEqual(await ids('q=hauptstrase'), [1], 'a typo of the new word');
      assert.deepEqual(await ids('sort=term&limit=1'), [1], 'hauptstrasse sorts before the rest');
    });
    assert.equal(pragmas(file).userVersion, MIGRATIONS.length);
  });
});

describe('SQLite upgrade to a list of indexed words (migration 6)', () => {
  test('the words of terms stored before are listed, and a prefix of `q` finds them', async () => {
    const file = path.join(tempDir(), 'glossary.db');
    const before = openSqliteStore(file);
    await before.importMany([
      sampleTerm(1, { term: 'Kubernetes', definition: 'Runs containers.' }) as Term,
      sampleTerm(2, {
        term: 'Kubelet',
        definition: 'The agent on each node of Kubernetes.',
      }) as Term,
      sampleTerm(3, { term: 'Cache', definition: 'Keeps answers close.' }) as Term,
    ]);
    await before.close();
    const db = openSqlite(file);
    asBeforeIndexedWords(db);
    db.pragma('user_version = 5');
    db.close();

    await throughTheService(file, async (ids) => {
      assert.deepEqual(await ids('q=kube'), [1, 2], 'both names begin with it: creation order');
      assert.deepEqual(await ids('q=contain'), [1]);
      assert.deepEqual(await ids('q=kubernetes'), [1, 2], 'the name first, then the definition');
      assert.deepEqual(await ids('q=kubex'), []);
    });
    const after = openSqlite(file, { readonly: true });
    try {
      const words = after.prepare('SELECT word FROM indexed_words ORDER BY word').pluck().all();
      assert.ok(
        ['cache', 'containers', 'kubelet', 'kubernetes', 'runs'].every((w) => words.includes(w)),
      );
      const vocab = after
        .prepare("SELECT count(*) FROM sqlite_schema WHERE name = 'terms_words_vocab'")
        .pluck()
        .get();
      assert.equal(vocab, 0);
    } finally {
      after.close();
    }
    assert.equal(pragmas(file).userVersion, MIGRATIONS.length);
  });
});

describe('SQLite upgrade to index upkeep (migration 7)', () => {
  test('the terms stored before are counted, so the first quiet moment merges the indexes, and every answer stays', async () => {
    const file = path.join(tempDir(), 'glossary.db');
    const before = openSqliteStore(file, { indexUpkeep: { minTerms: Number.MAX_SAFE_INTEGER } });
    for (let batch = 0; batch < 5; batch += 1) {
      await before.importMany(
        Array.from(
          { length: 20 },
          (_, i) => sampleTerm(batch * 20 + i + 1, { term: `Cache ${batch * 20 + i + 1}` }) as Term,
        ),
      );
    }
    await before.close();
    const db = openSqlite(file);
    asBeforeIndexUpkeep(db);
    db.pragma('user_version = 6');
    db.close();

    const store = openSqliteStore(file, { indexUpkeep: { idleMs: 10, minTerms: 1 } });
    const written = () => {
      const reader = openSqlite(file, { readonly: true });
      try {
        return reader
          .prepare('SELECT g.revision - u.merged_revision FROM glossary_state g, index_upkeep u')
          .pluck()
          .get();
      } finally {
        reader.close();
      }
    };
    try {
      assert.equal(pragmas(file).userVersion, MIGRATIONS.length);
      assert.equal(written(), 100, 'every term stored before counts');
      for (const deadline = Date.now() + 10_000; written() !== 0; ) {
        assert.ok(Date.now() < deadline, 'merged within 10 s of quiet');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    } finally {
      await store.close();
    }
    await throughTheService(file, async (ids) => {
      assert.equal((await ids('q=cache')).length, 100);
      assert.deepEqual(await ids('search=cache%2042'), [42]);
    });
  });
});

describe('SQLite upgrade to composed folded names (migration 8)', () => {
  test('names stored decomposed are found by composed patterns and the other way round', async () => {
    const file = path.join(tempDir(), 'glossary.db');
    const nfd = 'Café Crème'.normalize('NFD');
    const before = openSqliteStore(file);
    await before.importMany([
      sampleTerm(1, { term: nfd }) as Term,
      sampleTerm(2, { term: 'Cafe' }) as Term,
      sampleTerm(3, { term: 'Crème brûlée'.normalize('NFC') }) as Term,
    ]);
    await before.close();
    // What release 7 stored: the name folded in case only, so decomposed text stayed so.
    const db = openSqlite(file);
    const seq = db.prepare('SELECT seq FROM terms WHERE id = 1').pluck().get();
    db.prepare(
      `INSERT INTO terms_fts (terms_fts, rowid, term_folded)
       SELECT 'delete', seq, term_folded FROM terms WHERE seq = ?`,
    ).run(seq);
    db.prepare('UPDATE terms SET term_folded = ? WHERE seq = ?').run(nfd.toLowerCase(), seq);
    db.prepare('INSERT INTO terms_fts (rowid, term_folded) VALUES (?, ?)').run(
      seq,
      nfd.toLowerCase(),
    );
    asBeforeComposedNames(db);
    db.pragma('user_version = 7');
    db.close();

    await throughTheService(file, async (ids) => {
      const search = (text: string) => ids(`search=${encodeURIComponent(text)}`);
      assert.deepEqual(await search('café'.normalize('NFC')), [1]);
      assert.deepEqual(await search('CAFÉ CRÈME'.normalize('NFD')), [1]);
      assert.deepEqual(await search('crème'.normalize('NFD')), [1, 3]);
      assert.deepEqual(await search('cafe'), [2], 'a bare e is not é');
    });
    assert.equal(pragmas(file).userVersion, MIGRATIONS.length);
  });
});

describe('SQLite upgrade to words that follow content (migration 8)', () => {
  test('the vocabulary and the indexed words become exactly the words of the live terms', async () => {
    const file = path.join(tempDir(), 'glossary.db');
    const before = openSqliteStore(file);
    await before.importMany([
      sampleTerm(1, { term: 'Sharding', definition: 'Splitting rows across partitions.' }) as Term,
      sampleTerm(2, { term: 'Replica', definition: 'A copy kept elsewhere, 42 times.' }) as Term,
    ]);
    await before.close();
    // What an earlier release left: words of terms long changed, and (a write rolled back
    // after its words were known in memory) a live word missing.
    const db = openSqlite(file);
    db.exec(`INSERT INTO vocabulary (word, rev) VALUES ('shardng', 1), ('obsolete', 2);
      INSERT INTO indexed_words (word) VALUES ('shardng'), ('obsolete'), ('zz');
      DELETE FROM vocabulary WHERE word = 'partitions';
      DELETE FROM indexed_words WHERE word = 'rows';`);
    asBeforeComposedNames(db);
    db.pragma('user_version = 7');
    db.close();

    const store = openSqliteStore(file);
    try {
      assert.deepEqual(await store.similarWords('partitons', 1), ['partitions']);
      assert.deepEqual(await store.similarWords('obsolet', 1), []);
      const live = (await listAll(store)).flatMap((t) => {
        const { term, definition } = t as Term;
        return [...wordsOf(term), ...wordsOf(definition)];
      });
      const reader = openSqlite(file, { readonly: true });
      try {
        const column = (sql: string) => reader.prepare<[], string>(sql).pluck().all().sort();
        assert.deepEqual(column('SELECT word FROM indexed_words'), [...new Set(live)].sort());
        assert.deepEqual(
          column('SELECT word FROM vocabulary WHERE removed_at IS NULL'),
          [...new Set(live.filter(typoCandidate))].sort(),
        );
      } finally {
        reader.close();
      }
    } finally {
      await store.close();
    }
    assert.equal(pragmas(file).userVersion, MIGRATIONS.length);
  });
});

describe('SQLite upgrade to other names (migration 9)', () => {
  test('terms and history stored before read back identically, and their names and words are indexed', async () => {
    const file = path.join(tempDir(), 'glossary.db');
    const before = openSqliteStore(file);
    await before.importMany([
      sampleTerm(1, { term: 'Kubernetes', definition: 'Runs containers.' }) as Term,
      sampleTerm(2, { term: 'Crème  Brûlée', definition: 'A dessert.' }) as Term,
      sampleTerm(3, { term: 'Gone', definition: 'Removed before.' }) as Term,
    ]);
    await before.update(2, (t) => ({ ...t, definition: 'A French dessert.' }), { by: 'alice' });
    await before.remove(3, () => undefined, { by: 'bob' });
    const terms = await listAll(before);
    const histories = await Promise.all([1, 2, 3].map((id) => wholeHistory(before, id)));
    const revision = await before.revision();
    await before.close();
    const db = openSqlite(file);
    asBeforeOtherNames(db);
    db.pragma('user_version = 8');
    db.close();

    await throughTheService(file, async (ids) => {
      assert.deepEqual(await ids('q=kubernetes'), [1]);
      assert.deepEqual(await ids('q=dessert'), [2]);
      assert.deepEqual(await ids('q=bru'), [2], 'a prefix');
    });
    const store = openSqliteStore(file);
    try {
      assert.deepEqual(await listAll(store), terms);
      assert.deepEqual(await store.get(2), terms[1]);
      for (const [i, id] of [1, 2, 3].entries()) {
        assert.deepEqual(await wholeHistory(store, id), histories[i]);
      }
      assert.equal(await store.revision(), revision, 'no content changed');
      const reader = openSqlite(file, { readonly: true });
      try {
        assert.deepEqual(
          reader.prepare('SELECT seq, kind, fold, key FROM term_names ORDER BY seq').all(),
          [
            { seq: 1, kind: 'term', fold: 'kubernetes', key: 'kubernetes' },
            { seq: 2, kind: 'term', fold: 'creme brulee', key: 'creme brulee' },
          ],
        );
        assert.deepEqual(
          reader
            .prepare<[], { name: string }>("SELECT name FROM pragma_table_info('terms_words')")
            .all()
            .map((row) => row.name),
          ['name_words', 'definition_words', 'avoid_words'],
        );
      } finally {
        reader.close();
      }
      // The terms stored before take part in the rule, and new terms carry other names.
      await assert.rejects(
        store.create(sampleTerm(4, { term: 'Orchestrator', avoid: ['KUBERNETES'] }) as Term),
        /'KUBERNETES' is the name of term 1\./,
      );
      const named = { ...(sampleTerm(4) as Term), aliases: ['K8s'], avoid: ['creme'] };
      await store.create(named);
      assert.deepEqual(await store.get(4), named);
    } finally {
      await store.close();
    }
    assert.equal(pragmas(file).userVersion, MIGRATIONS.length);
  });
});

describe('SQLite upgrade to the change feed and webhooks (migration 10)', () => {
  test('every change stored before is in the feed, as in the histories, and webhooks can be added', async () => {
    const file = path.join(tempDir(), 'glossary.db');
    const before = openSqliteStore(file);
    await before.importMany([term(1), term(2), term(3)]);
    await before.update(2, (t) => ({ ...t, definition: 'Changed.' }), { by: 'alice' });
    await before.remove(3, () => undefined, { by: 'bob' });
    await before.create(term(4));
    const histories = await Promise.all([1, 2, 3, 4].map((id) => wholeHistory(before, id)));
    await before.close();
    const db = openSqlite(file);
    asBeforeChangeFeed(db);
    db.pragma('user_version = 9');
    db.close();

    const store = openSqliteStore(file);
    try {
      const changes = await store.changesSince(0, 100);
      assert.deepEqual(
        changes.map((e) => [e.action, e.term.id]),
        [
          ['created', 1],
          ['created', 2],
          ['created', 3],
          ['updated', 2],
          ['deleted', 3],
          ['created', 4],
        ],
      );
      for (const [i, id] of [1, 2, 3, 4].entries()) {
        const feed = changes.filter((e) => e.term.id === id);
        assert.deepEqual(feed, [...(histories[i] ?? [])].reverse());
      }
      const hook = await store.addWebhook({
        name: 'hook',
        url: 'https://hooks.example.com/',
        types: [],
        secret: 'whsec_c2VjcmV0',
        createdAt: 1,
      });
      assert.equal(typeof hook === 'object' && hook.cursor, await store.latestRevision());
    } finally {
      await store.close();
    }
    assert.equal(pragmas(file).userVersion, MIGRATIONS.length);
  });

  test('migration 11 lists the links of the terms stored before it, and keeps them after', async () => {
    const file = path.join(tempDir(), 'glossary.db');
    const before = openSqliteStore(file);
    await before.importMany([
      term(1),
      term(2, { see_also: [1, 9, 1] }),
      term(3, { see_also: [1, 2] }),
    ]);
    await before.close();
    const db = openSqlite(file);
    asBeforeLinks(db);
    db.pragma('user_version = 10');
    db.close();

    const store = openSqliteStore(file);
    try {
      const linking = async (id: number) => {
        const ids: number[] = [];
        for await (const chunk of store.list({ linksTo: id })) ids.push(...chunk.map((t) => t.id));
        return ids;
      };
      assert.deepEqual(await linking(1), [2, 3]);
      assert.deepEqual(await linking(9), [2]);
      assert.equal(await store.count({ linksTo: 1 }), 2);
      await store.update(2, (t) => ({ ...t, see_also: [] }), { by: null });
      assert.deepEqual(await linking(1), [3]);
      assert.deepEqual(await linking(9), []);
    } finally {
      await store.close();
    }
    assert.equal(pragmas(file).userVersion, MIGRATIONS.length);
  });
});
