import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import fc from 'fast-check';
import { foldCase } from '../../src/glossary/fold-case.ts';
import type { Term } from '../../src/glossary/term.ts';
import type { TermStore } from '../../src/glossary/term-store.ts';
import { openSqlite } from '../../src/store/sqlite/driver.ts';
import { APPLICATION_ID, MIGRATIONS } from '../../src/store/sqlite/migrations.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { trigramMatch } from '../../src/store/sqlite/trigram-match.ts';
import { tempDir } from '../helpers/backends.ts';

/** Characters that fold, expand, combine, or mean something to FTS5, LIKE or GLOB. */
const TRICKY = [
  'a',
  'A',
  'b',
  's',
  'S',
  'ß',
  'ẞ',
  'σ',
  'ς',
  'Σ',
  'i',
  'I',
  'İ',
  'ı',
  'ﬁ',
  'é',
  'e',
  '\u0301',
  // Canonical equivalents: a search finds the same whatever form either side is in.
  '\u030c',
  'ǰ',
  'J',
  'Å',
  '\u212b',
  '\u0345',
  'ᾳ',
  '"',
  "'",
  '*',
  '%',
  '_',
  '^',
  '-',
  '+',
  ':',
  '(',
  ')',
  '\\',
  '.',
  ' ',
  '\t',
  '\u0000',
  '😀',
  '𝔄',
  'ǅ',
  'ǆ',
];
const text = fc.oneof(
  fc.string({ unit: fc.constantFrom(...TRICKY), minLength: 1, maxLength: 12 }),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }),
);

async function listIds(store: TermStore, search: string): Promise<number[]> {
  const ids: number[] = [];
  for await (const chunk of store.list({ search })) ids.push(...chunk.map((t) => t.id));
  return ids;
}

function term(id: number, name: string): Term {
  return { id, term: name, definition: 'd', category: 'devops', see_also: [] };
}

describe('SQLite trigram search index', () => {
  const file = path.join(tempDir(), 'glossary.db');
  const store = openSqliteStore(file);
  const scan = openSqlite(file, { readonly: true });
  after(async () => {
    scan.close();
    await store.close();
  });
  const scanIds = scan
    .prepare<[string], number>('SELECT id FROM terms WHERE instr(term_folded, ?) > 0 ORDER BY seq')
    .pluck();
  const candidates = scan
    .prepare<[string], number>('SELECT rowid FROM terms_fts WHERE terms_fts MATCH ?')
    .pluck();
  const rowids = scan.prepare<[], { id: number; seq: number }>('SELECT id, seq FROM terms');

  test('search through the index finds exactly what a scan and a JS substring test find', async () => {
    const stored: Term[] = [];
    let nextId = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(text, { minLength: 1, maxLength: 8 }),
        fc.nat(),
        fc.nat(),
        fc.nat(),
        fc.boolean(),
        text,
        async (names, pick, start, length, upper, random) => {
          // Stored as sent, decomposed or composed: equivalent names are found alike.
          const batch = names.map((name, i) =>
            term(nextId++, i % 3 === 0 ? name : name.normalize(i % 3 === 1 ? 'NFD' : 'NFC')),
          );
          await store.importMany(batch);
          stored.push(...batch);
          // Mostly a piece of a stored term (cut at code points), sometimes any text.
          const source = Array.from(names[pick % names.length] as string);
          const from = start % source.length;
          const piece = source.slice(from, from + 1 + (length % (source.length - from))).join('');
          const pattern = pick % 4 === 0 ? random : upper ? piece.toUpperCase() : piece;

          const expected = stored
            .filter((t) => foldCase(t.term).includes(foldCase(pattern)))
            .map((t) => t.id);
          assert.deepEqual(await listIds(store, pattern), expected);
          assert.deepEqual(scanIds.all(foldCase(pattern)), expected);
          for (const form of ['NFC', 'NFD'] as const) {
            assert.deepEqual(await listIds(store, pattern.normalize(form)), expected, form);
          }

          // The index alone never loses a match: every matching row is among its candidates.
          const match = trigramMatch(foldCase(pattern));
          if (match !== undefined) {
            const found = new Set(candidates.all(match));
            const seqOf = new Map(rowids.all().map((r) => [r.id, r.seq]));
            for (const id of expected) assert.ok(found.has(seqOf.get(id) as number), pattern);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  test('a pattern shorter than three code points has no trigram query (the store scans)', () => {
    assert.equal(trigramMatch('ab'), undefined);
    assert.equal(trigramMatch('😀😀'), undefined);
    assert.equal(trigramMatch('a\u0000b'), undefined);
    assert.equal(trigramMatch('a"b'), '"a""b"');
  });
});

describe('SQLite search of a broad pattern (more index candidates than the index plan takes)', () => {
  test('scans instead and finds exactly the matches, also on repeated searches after new terms', async () => {
    const store = openSqliteStore(path.join(tempDir(), 'glossary.db'));
    try {
      const names = Array.from({ length: 25_000 }, (_, i) =>
        i % 2 === 0 ? `Common Ground ${i}` : `Commons ${i}`,
      );
      await store.importMany(names.map((name, id) => term(id, name)));
      const expected = (pattern: string) =>
        names
          .map((name, id) => ({ name, id }))
          .filter(({ name }) => foldCase(name).includes(foldCase(pattern)))
          .map(({ id }) => id);
      for (const pattern of ['common g', 'COMMON', 'ommons 4', 'common ground 24998']) {
        assert.deepEqual(await listIds(store, pattern), expected(pattern), pattern);
        assert.deepEqual(await listIds(store, pattern), expected(pattern), `${pattern} again`);
        assert.equal(await store.count({ search: pattern }), expected(pattern).length);
      }
      names.push('common ground, added later');
      await store.importMany([term(25_000, 'common ground, added later')]);
      assert.deepEqual(await listIds(store, 'common g'), expected('common g'));
      assert.equal((await listIds(store, 'common g')).at(-1), 25_000);
    } finally {
      await store.close();
    }
  });
});

describe('SQLite schema migration 2', () => {
  test('back-fills the search index for terms stored before it', async () => {
    const file = path.join(tempDir(), 'glossary.db');
    const v1 = openSqlite(file);
    v1.pragma('journal_mode = WAL');
    v1.exec(MIGRATIONS[0] as string);
    v1.pragma('user_version = 1');
    v1.pragma(`application_id = ${APPLICATION_ID}`);
    const insert = v1.prepare(
      `INSERT INTO terms (id, term, term_folded, definition, category, see_also)
       VALUES (?, ?, ?, 'd', 'backend', '[]')`,
    );
    for (let id = 1; id <= 3000; id += 1)
      insert.run(id, `Über Term ${id}`, foldCase(`Über Term ${id}`));
    v1.close();

    const store = openSqliteStore(file);
    try {
      assert.deepEqual(await listIds(store, 'über term 2999'), [2999]);
      assert.equal(await store.count({ search: 'ÜBER' }), 3000);
      const db = openSqlite(file, { readonly: true });
      const indexed = db
        .prepare(`SELECT count(*) FROM terms_fts WHERE terms_fts MATCH '"erm"'`)
        .pluck()
        .get();
      db.close();
      assert.equal(indexed, 3000);
    } finally {
      await store.close();
    }
  });
});
