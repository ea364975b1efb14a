import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { Change } from '../../src/glossary/history.ts';
import type { Category, Term } from '../../src/glossary/term.ts';
import type { TermStore } from '../../src/glossary/term-store.ts';
import { backends, listedIds } from '../helpers/backends.ts';

/**
 * `linksTo` (GET /terms?links_to=ID): the terms whose `see_also` holds the id, exact at once
 * under every write, on every backend, alone and with the other filters.
 */

const term = (
  id: number,
  see_also: number[] = [],
  name = `Term ${id}`,
  category: Category = 'backend',
): Term => ({ id, term: name, definition: `Definition of ${name}.`, category, see_also });
const by: Change = { by: null };
const accept = () => undefined;

/** The page `limit`/`offset` of a list, its ids. */
async function pageIds(
  store: TermStore,
  filter: Parameters<TermStore['list']>[0],
  options: Parameters<TermStore['list']>[1],
): Promise<number[]> {
  const ids: number[] = [];
  for await (const chunk of store.list(filter, options)) ids.push(...chunk.map((t) => t.id));
  return ids;
}

for (const backend of backends()) {
  describe(`store contract: links_to (${backend.name})`, () => {
    let s: TermStore;
    beforeEach(async () => {
      s = await backend.open();
      await s.importMany([
        term(1),
        term(2, [1], 'Zeta', 'frontend'),
        term(3, [1, 2], 'Alpha'),
        term(4, [2]),
        term(5, [1, 1, 5], 'Beta', 'frontend'),
        term(6, [99]),
      ]);
    });
    afterEach(() => s.close());

    test('lists the terms whose see_also holds the id, in creation order, each once', async () => {
      assert.deepEqual(await listedIds(s, { linksTo: 1 }), [2, 3, 5]);
      assert.equal(await s.count({ linksTo: 1 }), 3);
      assert.deepEqual(await listedIds(s, { linksTo: 2 }), [3, 4]);
      assert.deepEqual(await listedIds(s, { linksTo: 5 }), [5], 'a link to itself counts');
      assert.deepEqual(await listedIds(s, { linksTo: 99 }), [6], 'the id needs no term');
      assert.deepEqual(await listedIds(s, { linksTo: 6 }), []);
      assert.equal(await s.count({ linksTo: 6 }), 0);
      assert.equal(await s.count({ linksTo: 1 }, 2), 2);
    });

    test('combines with category, search, text, sort and paging', async () => {
      assert.deepEqual(await listedIds(s, { linksTo: 1, category: 'frontend' }), [2, 5]);
      assert.equal(await s.count({ linksTo: 1, category: 'frontend' }), 2);
      assert.deepEqual(await listedIds(s, { linksTo: 1, search: 'ta' }), [2, 5]);
      assert.deepEqual(
        await listedIds(s, {
          linksTo: 1,
          text: { words: { has: { in: 'any', words: ['alpha'] } } },
        }),
        [3],
      );
      assert.deepEqual(await pageIds(s, { linksTo: 1 }, { sort: 'term' }), [3, 5, 2]);
      assert.deepEqual(await pageIds(s, { linksTo: 1 }, { sort: '-id' }), [5, 3, 2]);
      assert.deepEqual(await pageIds(s, { linksTo: 1 }, { limit: 2, offset: 1 }), [3, 5]);
      assert.deepEqual(
        await listedIds(s, { linksTo: 1, range: { from: 'b', before: false } }),
        [2, 5],
      );
    });

    test('follows every write at once: create, update, remove, restore, import', async () => {
      await s.create(term(7, [1]), by);
      assert.deepEqual(await listedIds(s, { linksTo: 1 }), [2, 3, 5, 7]);
      assert.equal(await s.count({ linksTo: 1 }), 4);

      await s.update(3, (t) => ({ ...t, see_also: [2] }), by);
      assert.deepEqual(await listedIds(s, { linksTo: 1 }), [2, 5, 7]);
      assert.equal(await s.count({ linksTo: 1 }), 3);
      assert.deepEqual(await listedIds(s, { linksTo: 2 }), [3, 4]);

      await s.update(4, (t) => ({ ...t, see_also: [1, 2] }), by);
      assert.deepEqual(await listedIds(s, { linksTo: 1 }), [2, 4, 5, 7], 'keeps its place');
      assert.equal(await s.count({ linksTo: 1 }), 4);

      await s.update(4, (t) => ({ ...t, definition: 'Only the definition.' }), by);
      assert.deepEqual(await listedIds(s, { linksTo: 1 }), [2, 4, 5, 7]);

      await s.remove(2, accept, by);
      assert.deepEqual(await listedIds(s, { linksTo: 1 }), [4, 5, 7]);
      assert.equal(await s.count({ linksTo: 1 }), 3);

      const history = await s.history(2, { limit: 10 });
      const created = history?.entries.find((entry) => entry.action === 'created');
      assert.ok(created);
      await s.restore(2, created.revision, accept, by);
      assert.deepEqual(await listedIds(s, { linksTo: 1 }), [2, 4, 5, 7]);
      assert.equal(await s.count({ linksTo: 1 }), 4);

      await s.importMany([term(8, [1]), term(2, [1])], by);
      assert.deepEqual(await listedIds(s, { linksTo: 1 }), [2, 4, 5, 7, 8]);
      assert.equal(await s.count({ linksTo: 1, category: 'backend' }), 3);
    });

    test('a duplicate id: each term links on its own, and goes with its own row', async () => {
      await s.create(term(1, [6], 'Second one'), by);
      assert.deepEqual(await listedIds(s, { linksTo: 6 }), [1]);
      await s.remove(1, accept, by); // the earliest term 1, which links to nothing
      assert.deepEqual(await listedIds(s, { linksTo: 6 }), [1]);
      await s.remove(1, accept, by);
      assert.deepEqual(await listedIds(s, { linksTo: 6 }), []);
      assert.equal(await s.count({ linksTo: 6 }), 0);
    });

    test('writeNotes: the see_also ids no live term has, each once, in order', async () => {
      const notes = await s.writeNotes({ id: 2, term: 'Zeta', see_also: [9, 1, 8, 9, 2] }, 10);
      assert.deepEqual(notes.missing, [9, 8]);
      assert.deepEqual(notes.sameName, { ids: [], total: 0 });
      await s.create(term(9), by);
      assert.deepEqual((await s.writeNotes(term(2, [9, 8]), 10)).missing, [8], 'exact at once');
      await s.remove(1, accept, by);
      assert.deepEqual((await s.writeNotes(term(2, [1]), 10)).missing, [1]);
    });

    test('writeNotes: the other live terms with the name, as a name or an alias', async () => {
      await s.create({ ...term(7, [], 'Gamma'), aliases: ['ALPHA'] }, by);
      await s.create(term(3, [], 'Second three'), by);
      const notes = await s.writeNotes({ id: 3, term: ' álpha ', see_also: [] }, 10);
      assert.deepEqual(notes.sameName, { ids: [7], total: 1 }, 'not id 3');
      const other = await s.writeNotes({ id: 100, term: 'alpha', see_also: [] }, 10);
      assert.deepEqual(other.sameName, { ids: [3, 7], total: 2 });
      const capped = await s.writeNotes({ id: 100, term: 'alpha', see_also: [] }, 1);
      assert.deepEqual(capped.sameName, { ids: [3], total: 2 });
      await s.update(7, (t) => ({ ...t, aliases: [] }), by);
      assert.deepEqual((await s.writeNotes(term(100, [], 'Alpha'), 10)).sameName.ids, [3]);
    });

    test('danglingLinks: the terms linking to an id no live term has', async () => {
      assert.deepEqual(await s.danglingLinks(1, 10), { ids: [], total: 0 }, 'term 1 is live');
      assert.deepEqual(await s.danglingLinks(99, 10), { ids: [6], total: 1 });
      await s.remove(1, accept, by);
      assert.deepEqual(await s.danglingLinks(1, 10), { ids: [2, 3, 5], total: 3 });
      assert.deepEqual(await s.danglingLinks(1, 2), { ids: [2, 3], total: 3 });
      await s.update(3, (t) => ({ ...t, see_also: [] }), by);
      assert.deepEqual(await s.danglingLinks(1, 10), { ids: [2, 5], total: 2 });
      assert.deepEqual(await s.danglingLinks(12345, 10), { ids: [], total: 0 });
    });
  });
}
