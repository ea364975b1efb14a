import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { TermFilter } from '../../src/glossary/filters.ts';
import { NameConflictError } from '../../src/glossary/other-names.ts';
import type { Term } from '../../src/glossary/term.ts';
import type { TermStore } from '../../src/glossary/term-store.ts';
import { backends } from '../helpers/backends.ts';

/**
 * `importMany` writes a batch's terms and every index a read goes through as one write: as
 * soon as it answers, each term created is found by id, by `search`, by its words (`q`: name,
 * definition, aliases, names to avoid, a name's key), by category, by `links_to` and by the
 * typo vocabulary, in creation order; and nothing refused in the batch (an id taken, a name
 * the rule across the glossary refuses, against live terms or earlier items) is found by any
 * of them. Batches are large enough that a store writing in parts crosses its part sizes.
 */

const BATCH = 1_234;

/** Fixed width, so that no tag is a substring of another. */
const tagOf = (id: number) => String(id).padStart(6, '0');

const term = (id: number, extra: Partial<Term> = {}): Term => ({
  id,
  term: `Widget ${id} qx${tagOf(id)}`,
  definition: `Definition of widget ${id}, with the word zd${tagOf(id)}.`,
  category: id % 2 === 0 ? 'frontend' : 'backend',
  see_also: [id + 1],
  ...extra,
});

async function listAll(store: TermStore, filter: TermFilter): Promise<number[]> {
  const ids: number[] = [];
  for await (const chunk of store.list(filter)) ids.push(...chunk.map((t) => t.id));
  return ids;
}

const has = (words: string[], where: 'name' | 'avoid' | 'any' = 'any'): TermFilter => ({
  text: { words: { has: { in: where, words } } },
});

/** Every read that should find `t` (and only terms with the same name pieces). */
async function assertFound(s: TermStore, t: Term): Promise<void> {
  const tag = tagOf(t.id);
  assert.deepEqual(await s.get(t.id), t);
  assert.deepEqual(await listAll(s, { search: `qx${tag}` }), [t.id], `search ${t.id}`);
  assert.deepEqual(await listAll(s, has([`qx${tag}`], 'name')), [t.id], `name word ${t.id}`);
  assert.deepEqual(await listAll(s, has([`zd${tag}`])), [t.id], `definition word ${t.id}`);
  assert.deepEqual(
    await listAll(s, { text: { name: { is: `widget ${t.id} qx${tag}` } } }),
    [t.id],
    `name key ${t.id}`,
  );
  assert.ok((await listAll(s, { linksTo: t.id + 1 })).includes(t.id), `links_to ${t.id}`);
  assert.ok((await listAll(s, { category: t.category })).includes(t.id), `category ${t.id}`);
}

async function assertNotFound(s: TermStore, id: number): Promise<void> {
  const tag = tagOf(id);
  assert.deepEqual(await listAll(s, { search: `qx${tag}` }), [], `search ${id}`);
  assert.deepEqual(await listAll(s, has([`zd${tag}`])), [], `word ${id}`);
  assert.deepEqual(await listAll(s, { linksTo: id + 1 }), [], `links_to ${id}`);
}

for (const backend of backends()) {
  describe(`bulk import contract (${backend.name})`, () => {
    let s: TermStore;
    beforeEach(async () => {
      s = await backend.open();
    });
    afterEach(() => s.close());

    test('a batch is found by every index at once, refused items by none', async () => {
      // Before: a live term, one removed (its id free again), one with a name to avoid.
      await s.create(term(1));
      await s.create(term(2, { term: 'Removed name', definition: 'Gone ywgone.' }));
      await s.remove(2, () => undefined, { by: null });
      await s.create(term(3, { avoid: ['Legacy widget'] }));

      const batch: Term[] = [];
      for (let id = 1; id <= BATCH; id += 1) {
        if (id === 3) continue;
        batch.push(term(id));
      }
      // Refused by the rule: a live term's name to avoid, and a name an earlier item avoids.
      batch.push(term(5000, { term: 'legacy WIDGET' }));
      batch.push(term(5001, { aliases: ['Alias one ww5001'], avoid: ['Avoided ww5001'] }));
      batch.push(term(5002, { term: 'Avoided ww5001' }));
      batch.push(term(5003, { aliases: ['Second alias vv5003'] }));
      const outcomes = await s.importMany(batch);

      const expected = batch.map((t) =>
        t.id === 1 ? 'exists' : t.id === 5000 || t.id === 5002 ? 'conflict' : 'created',
      );
      assert.deepEqual(
        outcomes.map((o) => (o instanceof NameConflictError ? 'conflict' : o)),
        expected,
      );
      const created = batch.filter((_, i) => expected[i] === 'created');

      // Creation order: the terms before, then the batch's in request order.
      assert.deepEqual(await listAll(s, {}), [1, 3, ...created.map((t) => t.id)]);
      assert.equal(await s.count({}), 2 + created.length);
      for (const t of created.filter((t) => t.id % 97 === 2 || t.id > BATCH)) {
        await assertFound(s, t);
      }
      await assertFound(s, batch.find((t) => t.id === 2) as Term);
      assert.deepEqual(await listAll(s, has(['ywgone'])), [], 'the removed term is not found');
      assert.deepEqual(await listAll(s, { search: 'removed name' }), []);
      assert.deepEqual(await listAll(s, { search: 'legacy' }), []);
      await assertNotFound(s, 5000);
      await assertNotFound(s, 5002);
      assert.deepEqual(await listAll(s, has(['ww5001'], 'name')), [5001]);
      assert.deepEqual(await listAll(s, has(['ww5001'], 'avoid')), [5001]);
      assert.deepEqual(await listAll(s, has(['vv5003'], 'name')), [5003]);
      assert.deepEqual(await listAll(s, { text: { name: { is: 'second alias vv5003' } } }), [5003]);
      assert.ok((await s.similarWords('ww5002', 1)).includes('ww5001'));

      // A second batch, next to the first: both found, in order.
      const more = Array.from({ length: 700 }, (_, i) => term(10_000 + i));
      assert.ok((await s.importMany(more)).every((o) => o === 'created'));
      assert.deepEqual((await listAll(s, {})).slice(-701), [5003, ...more.map((t) => t.id)]);
      for (const t of [more[0], more[499], more[500], more[699]] as Term[]) {
        await assertFound(s, t);
      }
      await assertFound(s, created[created.length - 1] as Term);
    });
  });
}
