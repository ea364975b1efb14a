import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { NameConflictError } from '../../src/glossary/other-names.ts';
import type { Term } from '../../src/glossary/term.ts';
import type { TermStore } from '../../src/glossary/term-store.ts';
import { StoreUnavailableError } from '../../src/store/errors.ts';
import { backends, type Location, namedTerm, wholeHistory } from '../helpers/backends.ts';
import { eventually } from '../helpers/eventually.ts';

/**
 * What batching creates (group commit: the creates asked for in one turn share a transaction)
 * must keep: each caller answered with its own outcome, exactly what was accepted stored, in
 * the order asked, with the revisions of the feed in that order; on PostgreSQL, a batch that
 * fails before its COMMIT is tried again item by item, and one whose COMMIT fails
 * acknowledges none.
 */

const term = namedTerm;

async function listAll(store: TermStore): Promise<Term[]> {
  const all: Term[] = [];
  for await (const chunk of store.list({})) all.push(...chunk);
  return all;
}

/** A create's outcome as plain data: 'ok', or the refusal's fields. */
const outcome = (settled: PromiseSettledResult<void>) => {
  if (settled.status === 'fulfilled') return 'ok';
  const error = settled.reason;
  assert.ok(error instanceof NameConflictError, `a NameConflictError, not ${String(error)}`);
  return { kind: error.kind, text: error.text, otherId: error.otherId, message: error.message };
};

/** Creates, in one turn, each refused or accepted by what came before it (rule 8). */
const mixed = (): Term[] => [
  term(1, 'Alpha'),
  term(2, 'Beta', { avoid: ['ALPHA'] }), // refused: the batch's own first item
  term(1, 'Alpha again'), // a second live term of id 1
  term(3, 'Gamma', { avoid: ['Existing'] }), // refused: a term stored before
  term(4, 'Delta', { avoid: ['Epsilon'] }),
  term(5, 'epsilon'), // refused: item 4 avoids it
  term(6, 'Zeta', { aliases: ['Eta'] }),
  term(7, 'Theta', { avoid: ['eta'] }), // refused: item 6's alias
  term(2, 'Beta after all'), // id 2 was refused above; accepted now
  term(8, 'Iota'),
];

for (const backend of backends()) {
  describe(`creates asked for together (${backend.name})`, () => {
    let together: TermStore;
    let oneByOne: TermStore;
    before(async () => {
      together = await backend.open();
      oneByOne = await backend.open();
    });
    after(async () => {
      await together?.close();
      await oneByOne?.close();
    });

    test('each caller gets its own outcome; exactly the accepted are stored, as one by one', async () => {
      const by = { by: 'alice', at: 1_700_000_000_000 };
      await together.create(term(100, 'Existing'), by);
      await oneByOne.create(term(100, 'Existing'), by);
      const asked = mixed();
      const concurrent = await Promise.allSettled(asked.map((t) => together.create(t, by)));
      const sequential: PromiseSettledResult<void>[] = [];
      for (const t of asked) {
        sequential.push(
          await oneByOne.create(t, by).then(
            () => ({ status: 'fulfilled', value: undefined }) as const,
            (reason: unknown) => ({ status: 'rejected', reason }) as const,
          ),
        );
      }
      assert.deepEqual(concurrent.map(outcome), sequential.map(outcome));
      assert.deepEqual(
        concurrent.map((r) => r.status === 'fulfilled'),
        [true, false, true, false, true, false, true, false, true, true],
      );
      const stored = await listAll(together);
      assert.deepEqual(stored, await listAll(oneByOne));
      // In the order asked; an id stored twice is listed twice.
      assert.deepEqual(
        stored.map((t) => t.term),
        ['Existing', 'Alpha', 'Alpha again', 'Delta', 'Zeta', 'Beta after all', 'Iota'],
      );
      // Refused items left nothing: no history, the ids free for an import.
      for (const id of [3, 5, 7]) {
        assert.equal(await together.get(id), undefined);
        assert.deepEqual(await wholeHistory(together, id), []);
      }
      assert.deepEqual(await together.previewImport([term(3, 'C'), term(5, 'E'), term(7, 'T')]), [
        'created',
        'created',
        'created',
      ]);
      // Id 1 holds two live terms: removing the first shows the second.
      await together.remove(1, () => undefined, by);
      assert.equal((await together.get(1))?.term, 'Alpha again');
    });

    test('write notes asked together answer each its own, as asked one by one', async () => {
      const asked = [
        { term: { id: 50, term: 'alpha', see_also: [9, 1, 8, 9, 2] }, atMost: 10 },
        { term: { id: 51, term: 'ETA', see_also: [] }, atMost: 10 },
        { term: { id: 1, term: 'Alpha', see_also: [3, 100] }, atMost: 1 },
        { term: { id: 52, term: 'Nothing alike', see_also: [1] }, atMost: 0 },
      ];
      const together = await Promise.all(asked.map((a) => oneByOne.writeNotes(a.term, a.atMost)));
      const alone = [];
      for (const a of asked) alone.push(await oneByOne.writeNotes(a.term, a.atMost));
      assert.deepEqual(together, alone);
      // The terms the first test stored one by one: 8 is Iota, 1 the one named Alpha.
      assert.deepEqual(together[0], { missing: [9], sameName: { ids: [1], total: 1 } });
    });

    test('many concurrent creates: the feed holds each once, revisions in the order asked', async () => {
      const store = await backend.open();
      try {
        const ids = Array.from({ length: 300 }, (_, i) => 1000 + i);
        const turns = [ids.slice(0, 100), ids.slice(100, 200), ids.slice(200)];
        const writes: Promise<void>[] = [];
        for (const turn of turns) {
          for (const id of turn) writes.push(store.create(term(id, `Many ${id}`)));
          // The next ones in a later turn, while the first may be committing.
          await new Promise((resolve) => setImmediate(resolve));
        }
        await Promise.all(writes);
        let feed = await store.changesSince(0, 1000);
        await eventually(
          async () => {
            feed = await store.changesSince(0, 1000);
            return feed.length === ids.length;
          },
          () => `every create in the feed (${feed.length} of ${ids.length})`,
        );
        assert.deepEqual(
          feed.map((e) => e.term.id),
          ids,
        );
        for (let i = 1; i < feed.length; i += 1) {
          assert.ok((feed[i]?.revision ?? 0) > (feed[i - 1]?.revision ?? 0), 'revisions grow');
        }
        assert.deepEqual(
          (await listAll(store)).map((t) => t.id),
          ids,
        );
      } finally {
        await store.close();
      }
    });
  });
}

for (const backend of backends().filter((b) => b.name === 'postgres')) {
  describe('a batch of creates that fails (postgres)', () => {
    let location: Location;
    let store: TermStore;
    // `admin` holds the lock the batch waits for; `watch` finds and ends the batch's backend
    // (outside admin's transaction, whose view of pg_stat_activity would stay as first read).
    let admin: pg.Client;
    let watch: pg.Client;
    before(async () => {
      location = await backend.location();
      store = await location.open();
      admin = new pg.Client({ connectionString: location.url });
      watch = new pg.Client({ connectionString: location.url });
      await admin.connect();
      await watch.connect();
    });
    after(async () => {
      await admin?.end();
      await watch?.end();
      await store?.close();
      await location?.dispose();
    });

    /**
     * Terminates the store's backend once it waits for the lock `admin` holds (the statement's
     * text may be hidden from the test's role).
     */
    const terminateWaiting = (what: string) =>
      eventually(async () => {
        const { rows } = await watch.query<{ terminated: boolean }>(
          `SELECT pg_terminate_backend(pid) AS terminated FROM pg_stat_activity
           WHERE datname = current_database() AND $1 = ANY(pg_blocking_pids(pid))`,
          [(admin as unknown as { processID: number }).processID],
        );
        return rows.length === 1 && rows[0]?.terminated === true;
      }, `a backend waiting ${what}, terminated`);

    test('lost before its COMMIT: each create is tried again alone, and stored once', async () => {
      await store.create(term(1, 'Held'));
      await admin.query('BEGIN');
      // Holds id 1: the batch waits in BEGIN's round trip (its claim), before any COMMIT.
      await admin.query('SELECT 1 FROM term_ids WHERE id = 1 FOR UPDATE');
      const asked = [term(1, 'Held again'), term(2, 'Second'), term(3, 'Third')];
      const writes = Promise.allSettled(asked.map((t) => store.create(t)));
      await terminateWaiting('for id 1');
      await admin.query('COMMIT');
      assert.deepEqual(
        (await writes).map((r) => r.status),
        ['fulfilled', 'fulfilled', 'fulfilled'],
      );
      assert.deepEqual(
        (await listAll(store)).map((t) => t.term),
        ['Held', 'Held again', 'Second', 'Third'],
      );
      await store.remove(1, () => undefined, { by: null });
      assert.equal((await store.get(1))?.term, 'Held again');
      assert.equal((await store.changesSince(0, 100)).length, 5);
    });

    test('lost in its COMMIT: no caller is told its create is done, and none is stored', async () => {
      const before = await listAll(store);
      const feed = (await store.changesSince(0, 100)).length;
      await admin.query('BEGIN');
      // Holds every revision counter: the batch waits in its COMMIT's round trip.
      await admin.query('SELECT 1 FROM glossary_revision FOR UPDATE');
      const asked = [term(10, 'Lost one'), term(11, 'Lost two'), term(12, 'Lost three')];
      const writes = Promise.allSettled(asked.map((t) => store.create(t)));
      await terminateWaiting('for a revision counter');
      await admin.query('COMMIT');
      for (const result of await writes) {
        assert.equal(result.status, 'rejected');
        assert.ok(result.reason instanceof StoreUnavailableError, String(result.reason));
      }
      assert.deepEqual(await listAll(store), before);
      assert.equal((await store.changesSince(0, 100)).length, feed);
      // The store writes again afterwards.
      await store.create(term(10, 'Found again'));
      assert.equal((await store.get(10))?.term, 'Found again');
    });
  });
}
