import assert from 'node:assert/strict';
import { after, before, describe, type TestContext, test } from 'node:test';
import pg from 'pg';
import type { HistoryEntry } from '../../src/glossary/history.ts';
import type { Term } from '../../src/glossary/term.ts';
import type { TermStore } from '../../src/glossary/term-store.ts';
import { timedStore } from '../../src/store/timed-store.ts';
import { sampleTerm } from '../helpers/app.ts';
import { backends, type Location } from '../helpers/backends.ts';
import { eventually } from '../helpers/eventually.ts';

/**
 * The PostgreSQL change feed's own guarantees (feed.ts): a revision drawn by a transaction
 * still open holds back every change above it, whatever order the transactions took their
 * ids in; followers on two instances see every change of many concurrent writers exactly
 * once; and a change made through one instance wakes the other's watchers. (What every
 * backend's feed answers is the contract suite's.)
 */

const term = (id: number, name = `Term ${id}`) => sampleTerm(id, { term: name }) as Term;
const by = { by: null };
const revisions = (entries: HistoryEntry[]) => entries.map((entry) => entry.revision);

for (const backend of backends().filter((b) => b.name === 'postgres')) {
  describe('PostgreSQL change feed', () => {
    let location: Location;
    let store: TermStore;
    let other: TermStore;
    const raw: pg.Client[] = [];
    before(async () => {
      location = await backend.location();
      store = await location.open();
      other = await location.open();
    });
    after(async () => {
      await Promise.all(raw.map((client) => client.end()));
      await store?.close();
      await other?.close();
      await location?.dispose();
    });

    /** A plain connection to the store's database, ended after the suite. */
    const connection = async () => {
      const client = new pg.Client(location.url);
      await client.connect();
      raw.push(client);
      return client;
    };
    /**
     * Opens a transaction on `client` that has its xid; answers it. It is rolled back after
     * the test if the test left it open: an open transaction holds back every feed.
     */
    const begin = async (client: pg.Client, t: TestContext) => {
      t.after(() => client.query('ROLLBACK'));
      await client.query('BEGIN');
      const { rows } = await client.query<{ xid: string }>('SELECT pg_current_xact_id() AS xid');
      return BigInt(rows[0]?.xid as string);
    };
    const draw = async (client: pg.Client) => {
      const { rows } = await client.query<{ r: string }>("SELECT nextval('term_revision') AS r");
      return Number(rows[0]?.r);
    };
    /**
     * Records an entry at `revision` by hand, as a write of the store would, at a place
     * (`seq`) no term of the store has.
     */
    const record = (client: pg.Client, revision: number, id: number) =>
      client.query(
        `INSERT INTO term_history (revision, seq, id, action, at, by, term)
         VALUES ($1, -$2::bigint, $2, 'created', 0, NULL, $3)`,
        [revision, id, JSON.stringify(term(id))],
      );
    const everything = async (feed: TermStore) => feed.changesSince(0, 1000);

    test('a change above a revision drawn by an open transaction is held back until it ends', async (t) => {
      await store.create(term(1), by);
      const holder = await connection();
      await begin(holder, t);
      const drawn = await draw(holder);
      await store.create(term(2), by);
      const [created] = (await store.history(2, { limit: 1 }))?.entries ?? [];
      assert.ok(created && created.revision > drawn);
      assert.ok((await store.latestRevision()) >= created.revision);
      for (const feed of [store, other]) {
        assert.ok(
          (await everything(feed)).every((entry) => entry.revision < drawn),
          'nothing at or above the open revision is answered',
        );
      }
      await holder.query('ROLLBACK');
      await eventually(
        async () => revisions(await everything(store)).includes(created.revision),
        'the change answered once the holder rolled back',
      );
      await eventually(
        async () => (await everything(other)).map((entry) => entry.term.id).join() === '1,2',
        'the other instance answers both changes',
      );
    });

    test('the holder may have taken its transaction id after the writer that committed above it', async (t) => {
      // The writer's xid is older, so the holder's is above the newest finished one: a
      // snapshot's xmax does not show it running.
      const writer = await connection();
      const holder = await connection();
      const writerXid = await begin(writer, t);
      const holderXid = await begin(holder, t);
      assert.ok(holderXid > writerXid);
      const first = await draw(holder);
      const second = await draw(writer);
      await record(writer, second, 11);
      await writer.query('COMMIT');
      const since = first - 1;
      for (const feed of [store, other]) {
        assert.deepEqual(
          await feed.changesSince(since, 10),
          [],
          'the committed change above the open one is held back',
        );
      }
      await record(holder, first, 10);
      await holder.query('COMMIT');
      for (const feed of [store, other]) {
        await eventually(
          async () => (await feed.changesSince(since, 10)).length === 2,
          'both changes answered once the holder committed',
        );
        assert.deepEqual(
          (await feed.changesSince(since, 10)).map((entry) => [entry.revision, entry.term.id]),
          [
            [first, 10],
            [second, 11],
          ],
        );
      }
    });

    test('a transaction of another database holds nothing back', async (t) => {
      const elsewhere = new pg.Client(process.env.TEST_DATABASE_URL);
      await elsewhere.connect();
      raw.push(elsewhere);
      await begin(elsewhere, t);
      await store.create(term(5), by);
      const [created] = (await store.history(5, { limit: 1 }))?.entries ?? [];
      assert.ok(created);
      // Answered while it is still open (this store's own upkeep may write for a moment).
      await eventually(
        async () => (await store.changesSince(created.revision - 1, 10)).length === 1,
        'the change answered while the transaction elsewhere is open',
      );
    });

    test('an instance just started answers up to the horizon another one settled, while a writer runs', async (t) => {
      await store.create(term(6), by);
      const [created] = (await store.history(6, { limit: 1 }))?.entries ?? [];
      assert.ok(created);
      const admin = await connection();
      // `store` settles the change and shares its horizon (once a second at most).
      await eventually(async () => {
        const seen = revisions(await everything(store)).includes(created.revision);
        const { rows } = await admin.query<{ value: string }>('SELECT value FROM feed_horizon');
        return seen && Number(rows[0]?.value) >= created.revision;
      }, 'the horizon shared');
      const holder = await connection();
      await begin(holder, t);
      const started = await location.open();
      try {
        assert.ok(
          revisions(await everything(started)).includes(created.revision),
          'answered by the new instance while the holder runs',
        );
      } finally {
        await started.close();
      }
    });

    test('another instance wakes a watcher, also after its connection was lost', async () => {
      let calls = 0;
      const stop = other.watchChanges(() => {
        calls += 1;
      });
      try {
        // The listening connection is opened with the first watcher.
        const admin = await connection();
        const listening = async () =>
          (
            await admin.query(
              `SELECT pid FROM pg_stat_activity
               WHERE datname = current_database() AND application_name = 'glossary-changes'
                 AND query ILIKE 'LISTEN%'`,
            )
          ).rows as { pid: number }[];
        await eventually(async () => (await listening()).length === 1, 'a listening connection');
        await store.create(term(20), by);
        await eventually(() => calls > 0, 'the watcher woken by the other instance');
        const [{ pid } = { pid: 0 }] = await listening();
        const woken = calls;
        await admin.query('SELECT pg_terminate_backend($1)', [pid]);
        // Called once on reconnecting: something may have been missed meanwhile.
        await eventually(() => calls > woken, 'the watcher called once listening again');
        await eventually(async () => (await listening()).length === 1, 'listening again');
        const again = calls;
        await store.create(term(21), by);
        await eventually(() => calls > again, 'the watcher woken after reconnecting');
      } finally {
        stop();
      }
    });

    test('a watcher is woken when changes held back become answerable, with no NOTIFY', async (t) => {
      // Through the timed store, as the service watches: it must hand the watch through.
      let woken: () => void = () => undefined;
      const stop = timedStore(other, () => () => undefined).watchChanges(() => woken());
      const nextWake = () =>
        new Promise<void>((resolve) => {
          woken = resolve;
        });
      try {
        const since = await other.latestRevision();
        const holder = await connection();
        await begin(holder, t);
        await draw(holder);
        let wake = nextWake();
        await store.create(term(30), by);
        await wake;
        // Read as a follower does when woken: held back.
        assert.deepEqual(await other.changesSince(since, 10), []);
        wake = nextWake();
        await holder.query('COMMIT'); // no change of the glossary: nothing notified
        // Each wake is followed by a read, until one answers: woken only, never polled.
        const deadline = Date.now() + 15_000;
        for (;;) {
          let timeout: NodeJS.Timeout | undefined;
          const late = new Promise<'late'>((resolve) => {
            timeout = setTimeout(() => resolve('late'), deadline - Date.now());
          });
          const outcome = await Promise.race([wake, late]);
          clearTimeout(timeout);
          assert.notEqual(outcome, 'late', 'never woken with the change answerable');
          wake = nextWake();
          const page = await other.changesSince(since, 10);
          if (page.length === 0) continue;
          assert.deepEqual(
            page.map((entry) => entry.term.id),
            [30],
          );
          break;
        }
      } finally {
        stop();
      }
    });

    test('followers on two instances see every change of many concurrent writers exactly once', {
      timeout: 120_000,
    }, async () => {
      const start = await store.latestRevision();
      const writers = 8;
      const writes = 200;
      let writing = true;
      const follow = async (feed: TermStore) => {
        const seen: number[] = [];
        let next = start;
        let wake: () => void = () => undefined;
        const stop = feed.watchChanges(() => wake());
        try {
          for (;;) {
            const page = await feed.changesSince(next, 50);
            for (const entry of page) {
              assert.ok(entry.revision > next, 'in revision order, each once');
              seen.push(entry.revision);
              next = entry.revision;
            }
            if (page.length === 50) continue;
            if (!writing && next >= (await expectedMax())) return seen;
            // Woken by a change, or a second at most (the wake is tested on its own above).
            await new Promise<void>((resolve) => {
              const timer = setTimeout(resolve, 1000);
              wake = () => {
                clearTimeout(timer);
                resolve();
              };
            });
          }
        } finally {
          stop();
        }
      };
      const plain = await connection();
      const all = async () =>
        (
          await plain.query<{ revision: string }>(
            `SELECT revision FROM term_history WHERE revision > $1
             UNION SELECT created_rev FROM terms WHERE created_rev > $1 ORDER BY 1`,
            [start],
          )
        ).rows.map((row) => Number(row.revision));
      let max: number | undefined;
      const expectedMax = async () => {
        max ??= (await all()).at(-1) ?? start;
        return max;
      };

      const write = async (w: number) => {
        const feed = w % 2 === 0 ? store : other;
        const live: number[] = [];
        const removed: number[] = [];
        let fresh = 0;
        const newId = () => 1_000_000 + w * 10_000 + fresh++;
        for (let i = 0; i < writes; i += 1) {
          const pick = (list: number[]) => list[(i * 7 + w) % list.length] as number;
          const kind = live.length === 0 ? 0 : (i * 13 + w * 5) % 10;
          if (kind < 3) {
            const id = newId();
            await feed.create(term(id), by);
            live.push(id);
          } else if (kind < 5) {
            const id = pick(live);
            await feed.update(id, (t) => ({ ...t, definition: `Edit ${i}.` }), by);
          } else if (kind < 7) {
            const id = pick(live);
            await feed.remove(id, () => undefined, by);
            live.splice(live.indexOf(id), 1);
            removed.push(id);
          } else if (kind < 8 && removed.length > 0) {
            const id = pick(removed);
            const [entry] = (await feed.history(id, { limit: 1 }))?.entries ?? [];
            await feed.restore(id, entry?.revision as number, () => undefined, by);
            removed.splice(removed.indexOf(id), 1);
            live.push(id);
          } else {
            const ids = [newId(), newId(), newId()];
            await feed.importMany(
              ids.map((id) => term(id)),
              by,
            );
            live.push(...ids);
          }
        }
      };
      const followers = [follow(store), follow(other)];
      await Promise.all(Array.from({ length: writers }, (_, w) => write(w)));
      writing = false;
      const expected = await all();
      assert.ok(expected.length >= writers * writes, `${expected.length} changes`);
      const [first, second] = await Promise.all(followers);
      assert.deepEqual(first, expected);
      assert.deepEqual(second, expected);
    });
  });

  describe('PostgreSQL webhook leases', () => {
    let location: Location;
    let stores: TermStore[] = [];
    before(async () => {
      location = await backend.location();
      stores = [await location.open(), await location.open()];
    });
    after(async () => {
      await Promise.all(stores.map((s) => s.close()));
      await location?.dispose();
    });

    test('one owner at a time, whatever the number of instances claiming at once', async () => {
      const [a, b] = stores as [TermStore, TermStore];
      const hook = await a.addWebhook({
        name: 'race',
        url: 'https://example.com/hook',
        types: [],
        secret: 'whsec_AAAA',
        createdAt: 1,
      });
      assert.ok(hook !== 'name-taken');
      const id = hook.id;
      for (let round = 0; round < 20; round += 1) {
        // Each round's lease has expired at the next round's `now`.
        const now = 1000 * (round + 1);
        const owners = Array.from({ length: 10 }, (_, i) => `owner-${round}-${i}`);
        const claims = await Promise.all(
          owners.map((owner, i) => (i % 2 === 0 ? a : b).claimWebhook(id, owner, now, now + 500)),
        );
        assert.equal(claims.filter(Boolean).length, 1, `round ${round}: one owner`);
        const owner = owners[claims.indexOf(true)] as string;
        const loser = owners.find((o) => o !== owner) as string;
        const progress = { cursor: round, attempts: 0, nextAttemptAt: null };
        assert.equal(await b.saveWebhookProgress(id, loser, progress), false);
        assert.equal(await a.saveWebhookProgress(id, owner, progress), true);
      }
      const [listed] = await b.listWebhooks();
      assert.equal(listed?.cursor, 19);
    });
  });
}
