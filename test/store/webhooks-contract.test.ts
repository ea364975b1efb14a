import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import type { Term } from '../../src/glossary/term.ts';
import type { TermStore } from '../../src/glossary/term-store.ts';
import type { DeliveryAttempt, NewWebhook, Webhook } from '../../src/glossary/webhooks.ts';
import { backends, type Location } from '../helpers/backends.ts';

/** The promises of `WebhookStore` (src/glossary/webhooks.ts), held by every backend alike. */

const T = 1_700_000_000_000;

const term = (id: number): Term => ({
  id,
  term: `Term ${id}`,
  definition: `Definition of term ${id}.`,
  category: 'backend',
  see_also: [],
});

const endpoint = (name: string, extra: Partial<NewWebhook> = {}): NewWebhook => ({
  name,
  url: `https://hooks.example.com/${name}`,
  types: [],
  secret: `whsec_${Buffer.from(`secret of ${name}`).toString('base64')}`,
  createdAt: T,
  ...extra,
});

const attempt = (revision: number, extra: Partial<DeliveryAttempt> = {}): DeliveryAttempt => ({
  revision,
  at: T + revision,
  status: 200,
  error: null,
  durationMs: 12,
  ...extra,
});

async function added(store: TermStore, webhook: NewWebhook): Promise<Webhook> {
  const answer = await store.addWebhook(webhook);
  assert.notEqual(answer, 'name-taken');
  return answer as Webhook;
}

async function listed(store: TermStore, name: string): Promise<Webhook | undefined> {
  return (await store.listWebhooks()).find((w) => w.name === name);
}

for (const backend of backends()) {
  describe(`webhook store contract (${backend.name})`, () => {
    let s: TermStore;
    beforeEach(async () => {
      s = await backend.open();
    });
    afterEach(() => s.close());

    test('an endpoint is added as given, listed by name, and removed', async () => {
      const types = ['term.created', 'term.deleted'] as const;
      const beta = await added(s, endpoint('beta', { types: [...types] }));
      assert.deepEqual(beta, {
        id: beta.id,
        name: 'beta',
        url: 'https://hooks.example.com/beta',
        types: [...types],
        secrets: [endpoint('beta').secret],
        previousSecretUntil: null,
        createdAt: T,
        cursor: await s.latestRevision(),
        state: 'active',
        disabledReason: null,
        attempts: 0,
        nextAttemptAt: null,
        lastDelivery: null,
      });
      const alpha = await added(s, endpoint('alpha'));
      assert.deepEqual(alpha.types, []);
      assert.deepEqual(await s.listWebhooks(), [alpha, beta]);
      assert.equal(await s.removeWebhook('beta'), true);
      assert.equal(await s.removeWebhook('beta'), false);
      assert.equal(await s.removeWebhook('never'), false);
      assert.deepEqual(await s.listWebhooks(), [alpha]);
    });

    test('a name already taken is refused, and free again once removed', async () => {
      const first = await added(s, endpoint('hook'));
      assert.equal(
        await s.addWebhook(endpoint('hook', { url: 'https://other.example/' })),
        'name-taken',
      );
      assert.deepEqual(await s.listWebhooks(), [first]);
      await s.removeWebhook('hook');
      const again = await added(s, endpoint('hook', { url: 'https://other.example/' }));
      assert.equal(again.url, 'https://other.example/');
    });

    test('ids are never given again, even after the newest endpoint was removed', async () => {
      const a = await added(s, endpoint('a'));
      const b = await added(s, endpoint('b'));
      assert.notEqual(a.id, b.id);
      await s.removeWebhook('b');
      await s.removeWebhook('a');
      const c = await added(s, endpoint('c'));
      assert.ok(c.id !== a.id && c.id !== b.id, `id ${c.id} is new`);
      // A deliverer still holding a removed endpoint's id touches nothing.
      assert.equal(await s.claimWebhook(b.id, 'owner', T, T + 1000), false);
      assert.equal(
        await s.saveWebhookProgress(b.id, 'owner', { cursor: 5, attempts: 0, nextAttemptAt: null }),
        false,
      );
    });

    test('a new endpoint starts at latestRevision: the changes after it was added', async () => {
      assert.equal((await added(s, endpoint('empty'))).cursor, await s.latestRevision());
      await s.importMany([term(1), term(2)]);
      await s.update(1, (t) => ({ ...t, definition: 'Changed.' }), { by: null });
      const latest = await s.latestRevision();
      const hook = await added(s, endpoint('later'));
      assert.equal(hook.cursor, latest);
      assert.ok((await s.changesSince(0, 100)).every((e) => e.revision <= hook.cursor));
      await s.create(term(3));
      const [next] = await s.changesSince(hook.cursor, 100);
      assert.equal(next?.term.id, 3);
    });

    test('a lease goes to one owner at a time, is renewed by its owner, and free once expired', async () => {
      const { id } = await added(s, endpoint('hook'));
      assert.equal(await s.claimWebhook(id, 'a', T, T + 1000), true);
      assert.equal(await s.claimWebhook(id, 'b', T + 500, T + 1500), false);
      // Renewed by its owner: held longer.
      assert.equal(await s.claimWebhook(id, 'a', T + 900, T + 2000), true);
      assert.equal(await s.claimWebhook(id, 'b', T + 1500, T + 2500), false);
      // Expired: another owner takes it, and the first one can no longer.
      assert.equal(await s.claimWebhook(id, 'b', T + 2001, T + 3000), true);
      assert.equal(await s.claimWebhook(id, 'a', T + 2002, T + 3000), false);
      // Released by someone else: nothing happens; by its owner: free at once.
      await s.releaseWebhook(id, 'a');
      assert.equal(await s.claimWebhook(id, 'a', T + 2003, T + 3000), false);
      await s.releaseWebhook(id, 'b');
      assert.equal(await s.claimWebhook(id, 'a', T + 2004, T + 3000), true);
      // One endpoint's lease is not another's.
      const other = await added(s, endpoint('other'));
      assert.equal(await s.claimWebhook(other.id, 'b', T + 2005, T + 3000), true);
      assert.equal(await s.claimWebhook(id + other.id + 1000, 'a', T, T + 1000), false);
    });

    test('progress is saved only by the owner of the lease, with its attempt, in one go', async () => {
      const { id } = await added(s, endpoint('hook'));
      const progress = { cursor: 7, attempts: 2, nextAttemptAt: T + 5000 };
      // Never claimed.
      assert.equal(await s.saveWebhookProgress(id, 'a', progress, attempt(8)), false);
      assert.equal(await s.claimWebhook(id, 'a', T, T + 1000), true);
      // Someone else.
      assert.equal(await s.saveWebhookProgress(id, 'b', progress, attempt(8)), false);
      const untouched = await listed(s, 'hook');
      assert.equal(untouched?.cursor, await s.latestRevision());
      assert.equal(untouched?.attempts, 0);
      assert.equal(untouched?.lastDelivery, null);
      assert.deepEqual(await s.webhookDeliveries('hook', 10), []);
      // The owner.
      const failed = attempt(8, { status: 503, error: 'HTTP 503', durationMs: 40 });
      assert.equal(await s.saveWebhookProgress(id, 'a', progress, failed), true);
      const saved = await listed(s, 'hook');
      assert.equal(saved?.cursor, 7);
      assert.equal(saved?.attempts, 2);
      assert.equal(saved?.nextAttemptAt, T + 5000);
      assert.equal(saved?.state, 'active');
      assert.deepEqual(saved?.lastDelivery, failed);
      // Progress alone (a change passed over), no attempt: the last delivery stays.
      assert.equal(
        await s.saveWebhookProgress(id, 'a', { cursor: 9, attempts: 0, nextAttemptAt: null }),
        true,
      );
      const skipped = await listed(s, 'hook');
      assert.equal(skipped?.cursor, 9);
      assert.equal(skipped?.nextAttemptAt, null);
      assert.deepEqual(skipped?.lastDelivery, failed);
      assert.deepEqual(await s.webhookDeliveries('hook', 10), [failed]);
      // Released: refused again.
      await s.releaseWebhook(id, 'a');
      assert.equal(await s.saveWebhookProgress(id, 'a', progress), false);
      assert.equal((await listed(s, 'hook'))?.cursor, 9);
    });

    test('a disabling progress disables the endpoint and says why', async () => {
      const { id } = await added(s, endpoint('hook'));
      await s.claimWebhook(id, 'a', T, T + 1000);
      const gone = attempt(3, { status: 410, error: 'HTTP 410 Gone' });
      const disabledReason = 'the endpoint answered 410 Gone';
      assert.equal(
        await s.saveWebhookProgress(
          id,
          'a',
          { cursor: 2, attempts: 1, nextAttemptAt: null, disabledReason },
          gone,
        ),
        true,
      );
      const hook = await listed(s, 'hook');
      assert.equal(hook?.state, 'disabled');
      assert.equal(hook?.disabledReason, disabledReason);
      assert.deepEqual(hook?.lastDelivery, gone);
    });

    test('recent attempts come newest first, at most limit, the newest 100 kept', async () => {
      const { id } = await added(s, endpoint('hook'));
      const other = await added(s, endpoint('other'));
      await s.claimWebhook(id, 'a', T, T + 60_000);
      await s.claimWebhook(other.id, 'a', T, T + 60_000);
      for (let revision = 1; revision <= 130; revision += 1) {
        const progress = { cursor: revision, attempts: 0, nextAttemptAt: null };
        const failed = revision % 3 === 0 ? { status: null, error: 'timed out' } : {};
        assert.equal(
          await s.saveWebhookProgress(id, 'a', progress, attempt(revision, failed)),
          true,
        );
      }
      await s.saveWebhookProgress(
        other.id,
        'a',
        { cursor: 1, attempts: 0, nextAttemptAt: null },
        attempt(1),
      );
      const newest = (count: number) =>
        Array.from({ length: count }, (_, i) => {
          const revision = 130 - i;
          return attempt(revision, revision % 3 === 0 ? { status: null, error: 'timed out' } : {});
        });
      assert.deepEqual(await s.webhookDeliveries('hook', 3), newest(3));
      assert.deepEqual(await s.webhookDeliveries('hook', 1000), newest(100));
      assert.deepEqual((await listed(s, 'hook'))?.lastDelivery, newest(1)[0]);
      // Another endpoint's attempts are its own, and go with it.
      assert.deepEqual(await s.webhookDeliveries('other', 1000), [attempt(1)]);
      assert.equal(await s.webhookDeliveries('never', 10), undefined);
      await s.removeWebhook('hook');
      assert.equal(await s.webhookDeliveries('hook', 10), undefined);
      await added(s, endpoint('hook'));
      assert.deepEqual(await s.webhookDeliveries('hook', 10), []);
      assert.equal((await listed(s, 'hook'))?.lastDelivery, null);
    });

    test('a rotated secret signs first, the previous one keeps signing until its time', async () => {
      await added(s, endpoint('hook'));
      const first = endpoint('hook').secret;
      assert.equal(await s.rotateWebhookSecret('hook', 'whsec_c2Vjb25k', T + 86_400_000), true);
      const rotated = await listed(s, 'hook');
      assert.deepEqual(rotated?.secrets, ['whsec_c2Vjb25k', first]);
      assert.equal(rotated?.previousSecretUntil, T + 86_400_000);
      // Rotated again: the one before the previous is gone.
      assert.equal(await s.rotateWebhookSecret('hook', 'whsec_dGhpcmQ=', T + 90_000_000), true);
      const again = await listed(s, 'hook');
      assert.deepEqual(again?.secrets, ['whsec_dGhpcmQ=', 'whsec_c2Vjb25k']);
      assert.equal(again?.previousSecretUntil, T + 90_000_000);
      assert.equal(await s.rotateWebhookSecret('never', 'whsec_eA==', T), false);
    });
  });

  describe(`webhook store contract across stores on one storage (${backend.name})`, () => {
    let location: Location;
    let first: TermStore;
    let second: TermStore;
    before(async () => {
      location = await backend.location();
      first = await location.open();
      second = await location.open();
    });
    after(async () => {
      await first?.close();
      await second?.close();
      await location?.dispose();
    });

    test('what one store adds the other lists, and a name taken on one is taken on both', async () => {
      const hook = await added(first, endpoint('shared'));
      assert.deepEqual(await second.listWebhooks(), [hook]);
      assert.equal(await second.addWebhook(endpoint('shared')), 'name-taken');
    });

    test('owners on two stores claiming at once: exactly one gets each endpoint', async () => {
      const hooks = await Promise.all(
        Array.from({ length: 20 }, (_, i) => added(first, endpoint(`race-${i}`))),
      );
      for (const { id } of hooks) {
        const claims = await Promise.all([
          first.claimWebhook(id, 'a', T, T + 1000),
          second.claimWebhook(id, 'b', T, T + 1000),
          second.claimWebhook(id, 'c', T, T + 1000),
        ]);
        assert.equal(claims.filter(Boolean).length, 1, `endpoint ${id}: ${claims}`);
        const owner = ['a', 'b', 'c'][claims.indexOf(true)] as string;
        const progress = { cursor: 1, attempts: 0, nextAttemptAt: null };
        // Only the owner saves, from either store.
        for (const other of ['a', 'b', 'c'].filter((o) => o !== owner)) {
          assert.equal(await first.saveWebhookProgress(id, other, progress), false);
        }
        assert.equal(await second.saveWebhookProgress(id, owner, progress), true);
      }
    });
  });
}
