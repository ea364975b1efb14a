import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import type { TermFilter } from '../../src/glossary/filters.ts';
import { NameConflictError, type NameKind, nameFold } from '../../src/glossary/other-names.ts';
import type { Term } from '../../src/glossary/term.ts';
import type { TermStore } from '../../src/glossary/term-store.ts';
import { backends, type Location, namedTerm, wholeHistory } from '../helpers/backends.ts';

/** Rule 8 of TermStore: other names stored with a term, and no name to avoid another's name. */

const term = namedTerm;

const anyone = { by: 'alice' };

async function listAll(store: TermStore, filter: TermFilter = {}): Promise<Term[]> {
  const all: Term[] = [];
  for await (const chunk of store.list(filter)) all.push(...chunk);
  return all;
}

/** Asserts a NameConflictError with these fields (and the contract's message). */
function conflict(
  kind: NameKind,
  index: number,
  text: string,
  otherId: number,
  otherKind: NameKind,
): (error: unknown) => boolean {
  return (error) => {
    assert.ok(error instanceof NameConflictError, `a NameConflictError, not ${String(error)}`);
    assert.deepEqual(
      {
        kind: error.kind,
        index: error.index,
        text: error.text,
        otherId: error.otherId,
        otherKind: error.otherKind,
      },
      { kind, index, text, otherId, otherKind },
    );
    return true;
  };
}

/** Whether the live terms keep the rule: no name to avoid is another term's name or alias. */
function ruleHolds(terms: readonly Term[]): boolean {
  return terms.every((a) =>
    (a.avoid ?? []).every((avoid) =>
      terms.every(
        (b) =>
          a === b ||
          ![b.term, ...(b.aliases ?? [])].some((name) => nameFold(name) === nameFold(avoid)),
      ),
    ),
  );
}

for (const backend of backends()) {
  describe(`other names: stored and answered (${backend.name})`, () => {
    let s: TermStore;
    beforeEach(async () => {
      s = await backend.open();
    });
    afterEach(() => s.close());

    test('aliases and avoid come back through get, list, count and importMany, in Term key order', async () => {
      const full = term(1, 'Kubernetes', {
        aliases: ['K8s', 'Kube'],
        avoid: ['kubernetes cluster manager', 'Ünïcödé \u0000 "q" \\'],
      });
      await s.create(full);
      await s.importMany([term(2, 'Helm', { aliases: ['Helm chart'] }), term(3, 'Plain')]);
      const got = (await s.get(1)) as Term;
      assert.deepEqual(got, full);
      assert.deepEqual(Object.keys(got), [
        'id',
        'term',
        'definition',
        'category',
        'see_also',
        'aliases',
        'avoid',
      ]);
      assert.deepEqual(await s.get(2), term(2, 'Helm', { aliases: ['Helm chart'] }));
      assert.deepEqual(await listAll(s), [
        full,
        term(2, 'Helm', { aliases: ['Helm chart'] }),
        term(3, 'Plain'),
      ]);
      assert.deepEqual(await listAll(s, { search: 'kube' }), [full]);
      assert.equal(await s.count({ search: 'helm' }), 1);
    });

    test('empty lists are not kept: a term without other names is its five fields', async () => {
      await s.create(term(1, 'Empty', { aliases: [], avoid: [] }));
      await s.importMany([term(2, 'Also empty', { aliases: [], avoid: ['x'] })]);
      const got = (await s.get(1)) as Term;
      assert.deepEqual(Object.keys(got), ['id', 'term', 'definition', 'category', 'see_also']);
      assert.deepEqual(Object.keys((await s.get(2)) as Term), [
        'id',
        'term',
        'definition',
        'category',
        'see_also',
        'avoid',
      ]);
      // An update that empties them drops them.
      await s.update(2, (t) => ({ ...t, avoid: [] }), anyone);
      assert.deepEqual(await s.get(2), term(2, 'Also empty'));
      const [entry] = await wholeHistory(s, 2);
      assert.deepEqual(Object.keys(entry?.term ?? {}), Object.keys(got));
    });

    test('update, remove, history and restore carry them', async () => {
      const first = term(1, 'Webhook', { aliases: ['Web hook'] });
      await s.create(first, { at: 1000, by: 'alice' });
      const second = { ...first, aliases: ['Callback URL'], avoid: ['HTTP push'] };
      assert.deepEqual(await s.update(1, () => second, anyone), second);
      assert.deepEqual(await s.get(1), second);
      assert.deepEqual(await s.remove(1, () => undefined, anyone), second);
      const history = await wholeHistory(s, 1);
      assert.deepEqual(
        history.map((entry) => [entry.action, entry.term]),
        [
          ['deleted', second],
          ['updated', second],
          ['created', first],
        ],
      );
      // Re-created at its old place from the first state, then restored over the live one.
      const created = history[2]?.revision as number;
      assert.deepEqual(await s.restore(1, created, () => undefined, anyone), first);
      assert.deepEqual(await s.get(1), first);
      const updated = history[1]?.revision as number;
      assert.deepEqual(await s.restore(1, updated, () => undefined, anyone), second);
      assert.deepEqual(await s.get(1), second);
      assert.deepEqual((await wholeHistory(s, 1))[0]?.term, second);
    });

    test('the words of aliases and names to avoid are typo candidates while a live term has them', async () => {
      await s.create(
        term(1, 'Kubernetes', { aliases: ['Containerization'], avoid: ['Orchestrator'] }),
      );
      assert.deepEqual(await s.similarWords('orchestratr', 1), ['orchestrator']);
      assert.deepEqual(await s.similarWords('containerizaton', 1), ['containerization']);
      await s.update(1, (t) => ({ ...t, avoid: undefined }), anyone);
      assert.deepEqual(await s.similarWords('orchestratr', 1), []);
      assert.deepEqual(await s.similarWords('containerizaton', 1), ['containerization']);
      await s.remove(1, () => undefined, anyone);
      assert.deepEqual(await s.similarWords('containerizaton', 1), []);
    });

    test('the creation of a live term read from its row carries them', async () => {
      const t = term(5, 'Trunk', { aliases: ['Mainline'], avoid: ['master'] });
      await s.importMany([t]);
      const [entry] = await wholeHistory(s, 5);
      assert.equal(entry?.action, 'created');
      assert.deepEqual(entry?.term, t);
      // Restoring the creation (read from the live row) over the live term keeps them.
      await s.update(5, (current) => ({ ...current, aliases: undefined }), anyone);
      assert.deepEqual(await s.restore(5, entry?.revision as number, () => undefined, anyone), t);
      assert.deepEqual(await s.get(5), t);
    });
  });

  describe(`other names: rule 8, no name to avoid of one live term is another's name (${backend.name})`, () => {
    let s: TermStore;
    beforeEach(async () => {
      s = await backend.open();
    });
    afterEach(() => s.close());

    test("a name to avoid may not be another term's name, case and accents aside", async () => {
      await s.create(term(1, 'Kubernetes'));
      await assert.rejects(
        s.create(term(2, 'Orchestrator', { avoid: ['kubernétes'] })),
        conflict('avoid', 0, 'kubernétes', 1, 'term'),
      );
      await assert.rejects(
        s.create(term(2, 'Orchestrator', { avoid: ['Docker', '  KUBERNETES  '] })),
        (error: Error) => {
          conflict('avoid', 1, '  KUBERNETES  ', 1, 'term')(error);
          assert.equal(error.message, "'  KUBERNETES  ' is the name of term 1.");
          return true;
        },
      );
      assert.equal(await s.get(2), undefined, 'nothing of a refused create is stored');
      assert.equal(await s.history(2, { limit: 10 }), undefined);
    });

    test("a name to avoid may not be another term's alias", async () => {
      await s.create(term(1, 'Kubernetes', { aliases: ['K8s'] }));
      await assert.rejects(
        s.create(term(2, 'Nomad', { avoid: ['k8s'] })),
        conflict('avoid', 0, 'k8s', 1, 'aliases'),
      );
    });

    test("a name or an alias may not be another term's name to avoid", async () => {
      await s.create(term(1, 'Webhook', { avoid: ['Web hook', 'HTTP callback'] }));
      await assert.rejects(s.create(term(2, 'web  HOOK')), (error: Error) => {
        conflict('term', 0, 'web  HOOK', 1, 'avoid')(error);
        assert.equal(error.message, "'web  HOOK' is a name to avoid for term 1.");
        return true;
      });
      await assert.rejects(
        s.create(term(2, 'Callback', { aliases: ['Hook', 'http callback'] })),
        conflict('aliases', 1, 'http callback', 1, 'avoid'),
      );
      // The same name to avoid, or a name shared with another name, is no conflict.
      await s.create(term(3, 'Push', { avoid: ['web hook'] }));
      await s.create(term(4, 'Webhook'));
    });

    test('the first conflicting name is reported, and the earliest term it conflicts with', async () => {
      await s.create(term(1, 'Alpha'));
      await s.create(term(2, 'Beta', { avoid: ['Gamma'] }));
      await s.create(term(3, 'Other', { aliases: ['alpha'] }));
      await assert.rejects(
        s.create(term(4, 'Delta', { aliases: ['Epsilon', 'GAMMA'], avoid: ['ALPHA'] })),
        conflict('aliases', 1, 'GAMMA', 2, 'avoid'),
      );
      await assert.rejects(
        s.create(term(4, 'Delta', { avoid: ['Zeta', 'ALPHA'] })),
        conflict('avoid', 1, 'ALPHA', 1, 'term'),
      );
    });

    test('a term is never in conflict with itself, and an update that would conflict is refused whole', async () => {
      await s.create(term(1, 'Alpha', { aliases: ['Beta'] }));
      await s.create(term(2, 'Gamma'));
      // Its own old names do not count: the name becomes one to avoid, and the other way round.
      const swapped = term(1, 'Beta', { avoid: ['Alpha'] });
      assert.deepEqual(await s.update(1, () => swapped, anyone), swapped);
      // A term's own names may even fold alike: the rule is across terms.
      await s.update(1, (t) => ({ ...t, aliases: ['beta'], avoid: ['BETA', 'Alpha'] }), anyone);
      const revision = await s.revision();
      const state = await s.get(1);
      await assert.rejects(
        s.update(1, (t) => ({ ...t, avoid: ['Alpha', 'gamma'] }), anyone),
        conflict('avoid', 1, 'gamma', 2, 'term'),
      );
      await assert.rejects(
        s.update(2, (t) => ({ ...t, aliases: ['alpha'] }), anyone),
        conflict('aliases', 0, 'alpha', 1, 'avoid'),
      );
      assert.deepEqual(await s.get(1), state);
      assert.deepEqual(await s.get(2), term(2, 'Gamma'));
      assert.equal(await s.revision(), revision, 'a refused update changes nothing');
    });

    test('a removed term leaves its names free', async () => {
      await s.create(term(1, 'Alpha'));
      await s.remove(1, () => undefined, anyone);
      await s.create(term(2, 'Beta', { avoid: ['alpha'] }));
      // ...and it cannot come back while another term avoids its name.
      const [deleted] = await wholeHistory(s, 1);
      await assert.rejects(
        s.restore(1, deleted?.revision as number, () => undefined, anyone),
        conflict('term', 0, 'Alpha', 2, 'avoid'),
      );
      assert.equal(await s.get(1), undefined);
      assert.equal((await wholeHistory(s, 1)).length, 2, 'a refused restore records nothing');
    });

    test('a restore over the live term that would conflict is refused', async () => {
      await s.create(term(1, 'Alpha', { avoid: ['Gamma'] }));
      await s.update(1, (t) => ({ ...t, avoid: undefined }), anyone);
      await s.create(term(2, 'Gamma'));
      const [, created] = await wholeHistory(s, 1);
      await assert.rejects(
        s.restore(1, created?.revision as number, () => undefined, anyone),
        conflict('avoid', 0, 'Gamma', 2, 'term'),
      );
      assert.deepEqual(await s.get(1), term(1, 'Alpha'));
    });

    test('importMany refuses each conflicting item alone, against live terms and earlier items', async () => {
      await s.create(term(1, 'Alpha'));
      await s.create(term(9, 'Removed'));
      await s.remove(9, () => undefined, anyone);
      const before = await s.revision();
      const batch = [
        term(2, 'Beta', { avoid: ['alpha'] }),
        term(3, 'Gamma', { avoid: ['Delta'] }),
        term(4, 'Delta'),
        term(5, 'Zeta', { avoid: ['Alpha', 'Theta'] }),
        term(6, 'Theta'),
        term(1, 'Again'),
        term(9, 'Back', { aliases: ['ALPHA'], avoid: ['gamma'] }),
      ];
      // A dry run answers what the import will, and stores nothing.
      const preview = await s.previewImport(batch);
      assert.equal(await s.revision(), before);
      const outcomes = await s.importMany(batch);
      assert.deepEqual(preview, outcomes);
      assert.deepEqual(
        outcomes.map((o) => (o instanceof NameConflictError ? o.message : o)),
        [
          "'alpha' is the name of term 1.",
          'created',
          "'Delta' is a name to avoid for term 3.",
          "'Alpha' is the name of term 1.",
          'created', // Zeta was refused: its names to avoid are not stored
          'exists',
          "'gamma' is the name of term 3.",
        ],
      );
      conflict('avoid', 0, 'alpha', 1, 'term')(outcomes[0]);
      conflict('term', 0, 'Delta', 3, 'avoid')(outcomes[2]);
      conflict('avoid', 0, 'gamma', 3, 'term')(outcomes[6]);
      assert.notEqual(await s.revision(), before);
      assert.deepEqual(
        (await listAll(s)).map((t) => t.id),
        [1, 3, 6],
      );
      // A refused id was never stored: it is free, and has no history.
      assert.equal(await s.history(2, { limit: 10 }), undefined);
      assert.deepEqual(
        await s.previewImport([term(2, 'B'), term(4, 'D'), term(5, 'Z'), term(9, 'N')]),
        ['created', 'created', 'created', 'created'],
      );
      assert.equal((await wholeHistory(s, 9)).length, 2, 'the removed term keeps its history');
      assert.deepEqual(await s.importMany([term(2, 'Beta'), term(9, 'Back')]), [
        'created',
        'created',
      ]);
      // Nothing created: the revision stays.
      const now = await s.revision();
      const refused = await s.importMany([term(20, 'X', { avoid: ['beta'] })]);
      assert.ok(refused[0] instanceof NameConflictError);
      assert.equal(await s.revision(), now);
    });

    test('creates asked for together: a conflicting one is refused, the others stored', async () => {
      // SQLite commits single creates that arrive together in one transaction (group commit).
      await s.create(term(1, 'Alpha'));
      const results = await Promise.allSettled([
        s.create(term(2, 'Beta')),
        s.create(term(3, 'Gamma', { avoid: ['ALPHA'] })),
        s.create(term(4, 'Delta')),
      ]);
      assert.deepEqual(
        results.map((r) => r.status),
        ['fulfilled', 'rejected', 'fulfilled'],
      );
      // Concurrent calls promise no order among themselves (on PostgreSQL, commit order).
      assert.deepEqual((await listAll(s)).map((t) => t.id).sort(), [1, 2, 4]);
    });
  });

  describe(`other names: two stores on one storage never both get in (${backend.name})`, () => {
    let location: Location;
    let a: TermStore;
    let b: TermStore;
    before(async () => {
      location = await backend.location();
      a = await location.open();
      b = await location.open();
    });
    after(async () => {
      await a?.close();
      await b?.close();
      await location?.dispose();
    });

    test('concurrent writes of a name and the same name to avoid: exactly one succeeds, every round', async () => {
      const rounds = 40;
      for (let n = 0; n < rounds; n += 1) {
        const avoid = term(2 * n + 1000, `Avoider ${n}`, { avoid: [`X_${n}`] });
        const named = term(2 * n + 1001, `x_${n}`);
        // Each pair races through a different pair of write paths.
        const kind = n % 4;
        // An import of many names locks them all at once (PostgreSQL, name-locks.ts).
        const many =
          kind === 3
            ? Array.from({ length: 80 }, (_, i) => term(-(n * 100 + i + 1), `Filler ${n} ${i}`))
            : [];
        const first =
          kind === 0 || kind === 2
            ? a.create(avoid)
            : a.importMany([avoid, ...many]).then(([o]) => {
                if (o instanceof Error) throw o;
              });
        const second =
          kind === 0 || kind === 1
            ? b.create(named)
            : b.importMany([named]).then(([o]) => {
                if (o instanceof Error) throw o;
              });
        const results = await Promise.allSettled([first, second]);
        const won = results.filter((r) => r.status === 'fulfilled').length;
        assert.equal(won, 1, `round ${n}: ${results.map((r) => r.status).join(', ')}`);
        for (const r of results) {
          if (r.status === 'rejected') assert.ok(r.reason instanceof NameConflictError, r.reason);
        }
      }
      // Updates race too: one adds a name to avoid, the other takes it as an alias.
      for (let n = 0; n < rounds / 2; n += 1) {
        await a.create(term(5000 + n, `Left ${n}`));
        await a.create(term(6000 + n, `Right ${n}`));
        const results = await Promise.allSettled([
          a.update(5000 + n, (t) => ({ ...t, avoid: [`Y_${n}`] }), anyone),
          b.update(6000 + n, (t) => ({ ...t, aliases: [`y_${n}`] }), anyone),
        ]);
        assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1, `update ${n}`);
      }
      const all = await listAll(a);
      assert.ok(ruleHolds(all), 'the survivors keep the rule');
      assert.deepEqual(await listAll(b), all);
    });
  });
}
