import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Webhook as Verifier } from 'standardwebhooks';
import type { ChangeType } from '../../src/glossary/changes.ts';
import type { Term } from '../../src/glossary/term.ts';
import type { TermStore } from '../../src/glossary/term-store.ts';
import type { Webhook } from '../../src/glossary/webhooks.ts';
import { type DelivererOptions, startDeliverer } from '../../src/webhooks/deliverer.ts';
import type { DeliveryOutcome } from '../../src/webhooks/progress.ts';
import { newSecret } from '../../src/webhooks/signing.ts';
import { sampleTerm } from '../helpers/app.ts';
import { type Backend, backends } from '../helpers/backends.ts';
import { eventually } from '../helpers/eventually.ts';
import { startReceiver } from './receiver.ts';

/**
 * The deliverer against each real store and a real local HTTP endpoint: order, retries,
 * Retry-After, 410, the schedule's end, independence of endpoints, one deliverer per endpoint.
 * Schedules are short; every wait is an `eventually`.
 */

const quiet = { info() {}, warn() {} };
const term = (id: number, overrides: Record<string, unknown> = {}) =>
  sampleTerm(id, overrides) as Term;

function options(
  store: TermStore,
  extra: Partial<DelivererOptions> & {
    schedule?: number[];
    allowPrivate?: boolean;
    timeoutMs?: number;
  } = {},
): DelivererOptions {
  const { schedule, allowPrivate, timeoutMs, ...rest } = extra;
  return {
    store,
    log: quiet,
    config: {
      webhookAllowPrivate: allowPrivate ?? true,
      webhookRetrySchedule: schedule ?? [50, 100],
      webhookTimeoutMs: timeoutMs ?? 5000,
    },
    tickMs: 50,
    renewMs: 100,
    leaseMs: 1000,
    stopGraceMs: 200,
    ...rest,
  };
}

async function add(
  store: TermStore,
  name: string,
  url: string,
  types: ChangeType[] = [],
): Promise<Webhook & { secret: string }> {
  const secret = newSecret();
  const added = await store.addWebhook({ name, url, types, secret, createdAt: Date.now() });
  assert.notEqual(added, 'name-taken');
  return { ...(added as Webhook), secret };
}

const webhookNamed = async (store: TermStore, name: string) =>
  (await store.listWebhooks()).find((w) => w.name === name) as Webhook;

async function withSetup(
  backend: Backend,
  work: (store: TermStore, receiver: Awaited<ReturnType<typeof startReceiver>>) => Promise<void>,
): Promise<void> {
  const store = await backend.open();
  const receiver = await startReceiver();
  try {
    await work(store, receiver);
  } finally {
    await receiver.close();
    await store.close();
  }
}

for (const backend of backends()) {
  describe(`the webhook deliverer (${backend.name})`, () => {
    test('delivers each change once, in revision order, signed, only the types asked for', async () => {
      await withSetup(backend, async (store, receiver) => {
        await store.create(term(1)); // before the endpoints: not theirs
        const all = await add(store, 'all', receiver.url('/all'));
        const deletes = await add(store, 'deletes', receiver.url('/deletes'), ['term.deleted']);
        const counts: DeliveryOutcome[] = [];
        const deliverer = startDeliverer(options(store, { onOutcome: (o) => counts.push(o) }));
        try {
          for (let id = 2; id <= 6; id += 1) await store.create(term(id));
          await store.update(2, (t) => ({ ...t, definition: 'Changed.' }), { by: 'ci' });
          await store.remove(3, () => undefined, { by: null });
          await eventually(() => receiver.at('/all').length === 7, 'seven deliveries to /all');
          await eventually(() => receiver.at('/deletes').length === 1, 'one delivery to /deletes');

          const bodies = receiver.at('/all').map((r) => {
            const verified = new Verifier(all.secret).verify(r.body, r.headers) as {
              type: string;
              data: { revision: number; id: number; by: string | null };
            };
            assert.equal(r.id, `msg_${verified.data.revision}_${all.id}`);
            return verified;
          });
          const revisions = bodies.map((b) => b.data.revision);
          assert.deepEqual(
            revisions,
            [...revisions].sort((a, b) => a - b),
          );
          assert.ok(revisions.every((r) => r > all.cursor));
          assert.deepEqual(
            bodies.map((b) => [b.type, b.data.id]),
            [
              ['term.created', 2],
              ['term.created', 3],
              ['term.created', 4],
              ['term.created', 5],
              ['term.created', 6],
              ['term.updated', 2],
              ['term.deleted', 3],
            ],
          );
          assert.equal(bodies[5]?.data.by, 'ci');
          const [deleted] = receiver.at('/deletes');
          const body = new Verifier(deletes.secret).verify(
            deleted?.body ?? '',
            deleted?.headers ?? {},
          );
          assert.equal((body as { type: string }).type, 'term.deleted');

          const latest = await store.latestRevision();
          await eventually(
            async () => (await webhookNamed(store, 'deletes')).cursor === latest,
            'the passed-over changes move the cursor too',
          );
          // An endpoint has a request before the deliverer records its answer.
          await eventually(
            async () => (await store.webhookDeliveries('all', 100))?.length === 7,
            'seven attempts recorded',
          );
          const attempts = await store.webhookDeliveries('all', 100);
          assert.ok(attempts?.every((a) => a.status === 204 && a.error === null));
          await eventually(
            () => counts.filter((o) => o === 'delivered').length === 8,
            'eight counted delivered',
          );
        } finally {
          await deliverer.stop();
        }
      });
    });

    test('a 500 is retried on the schedule with the same webhook-id; the next change waits its turn', async () => {
      await withSetup(backend, async (store, receiver) => {
        const hook = await add(store, 'flaky', receiver.url('/flaky'));
        receiver.answer('/flaky', (_r, nth) => ({ status: nth <= 2 ? 500 : 200 }));
        const deliverer = startDeliverer(options(store));
        try {
          await store.create(term(1));
          await store.create(term(2));
          await eventually(() => receiver.at('/flaky').length === 4, 'three tries, then the next');
          const ids = receiver.at('/flaky').map((r) => r.id);
          const first = await store.latestRevision();
          assert.deepEqual(ids, [
            `msg_${first - 1}_${hook.id}`,
            `msg_${first - 1}_${hook.id}`,
            `msg_${first - 1}_${hook.id}`,
            `msg_${first}_${hook.id}`,
          ]);
          for (const r of receiver.at('/flaky'))
            new Verifier(hook.secret).verify(r.body, r.headers);
          await eventually(
            async () => (await store.webhookDeliveries('flaky', 10))?.length === 4,
            'four attempts recorded',
          );
          const attempts = await store.webhookDeliveries('flaky', 10);
          assert.deepEqual(attempts?.map((a) => [a.status, a.error]).reverse(), [
            [500, 'HTTP 500'],
            [500, 'HTTP 500'],
            [200, null],
            [200, null],
          ]);
          const [a, b, c] = receiver.at('/flaky');
          assert.ok((b?.at ?? 0) - (a?.at ?? 0) >= 50, 'the first retry waited 50 ms');
          assert.ok((c?.at ?? 0) - (b?.at ?? 0) >= 100, 'the second waited 100 ms');
          const state = await webhookNamed(store, 'flaky');
          assert.equal(state.attempts, 0);
          assert.equal(state.state, 'active');
        } finally {
          await deliverer.stop();
        }
      });
    });

    test('a Retry-After longer than the schedule wins', async () => {
      await withSetup(backend, async (store, receiver) => {
        await add(store, 'busy', receiver.url('/busy'));
        receiver.answer('/busy', (_r, nth) =>
          nth === 1 ? { status: 503, headers: { 'retry-after': '1' } } : { status: 204 },
        );
        const deliverer = startDeliverer(options(store));
        try {
          await store.create(term(1));
          await eventually(
            async () => (await webhookNamed(store, 'busy')).attempts === 1,
            'the first attempt failed',
          );
          const waiting = await webhookNamed(store, 'busy');
          assert.ok(
            (waiting.nextAttemptAt ?? 0) - (waiting.lastDelivery?.at ?? 0) >= 1000,
            'the next attempt is a second later, not 50 ms',
          );
          await eventually(() => receiver.at('/busy').length === 2, 'the retry');
          const [a, b] = receiver.at('/busy');
          assert.ok((b?.at ?? 0) - (a?.at ?? 0) >= 1000 - 5);
        } finally {
          await deliverer.stop();
        }
      });
    });

    test('410 disables the endpoint at once; an exhausted schedule disables it with the reason', async () => {
      await withSetup(backend, async (store, receiver) => {
        await add(store, 'gone', receiver.url('/gone'));
        await add(store, 'down', receiver.url('/down'));
        receiver.answer('/gone', () => ({ status: 410 }));
        receiver.answer('/down', () => ({ status: 502 }));
        const counts: DeliveryOutcome[] = [];
        const deliverer = startDeliverer(options(store, { onOutcome: (o) => counts.push(o) }));
        try {
          await store.create(term(1));
          await store.create(term(2));
          await eventually(
            async () => (await webhookNamed(store, 'gone')).state === 'disabled',
            'gone disabled',
          );
          const gone = await webhookNamed(store, 'gone');
          assert.equal(gone.disabledReason, 'the endpoint answered 410 Gone');
          assert.equal(receiver.at('/gone').length, 1);
          assert.equal(gone.lastDelivery?.status, 410);

          await eventually(
            async () => (await webhookNamed(store, 'down')).state === 'disabled',
            'down disabled',
          );
          const down = await webhookNamed(store, 'down');
          assert.equal(down.disabledReason, '2 retries failed; last: HTTP 502');
          assert.equal(receiver.at('/down').length, 3, 'the attempt and two retries');
          assert.equal(down.cursor, gone.cursor, 'the change was not passed');
          await eventually(() => counts.length === 4, 'four attempts counted');
          assert.deepEqual([...counts].sort(), ['disabled', 'disabled', 'failed', 'failed']);
        } finally {
          await deliverer.stop();
        }
      });
    });

    test('a slow endpoint delays only itself', async () => {
      await withSetup(backend, async (store, receiver) => {
        await add(store, 'slow', receiver.url('/slow'));
        await add(store, 'fast', receiver.url('/fast'));
        receiver.answer('/slow', () => ({ status: 200, hang: true }));
        // The hanging attempt must not time out while the others are delivered, however slow.
        const deliverer = startDeliverer(options(store, { timeoutMs: 600_000 }));
        try {
          // The slow endpoint holds its first request before the rest are written, so the
          // four after it reach /fast while /slow is known to hang.
          await store.create(term(1));
          await eventually(() => receiver.at('/slow').length === 1, 'the first reaches /slow');
          for (let id = 2; id <= 5; id += 1) await store.create(term(id));
          await eventually(() => receiver.at('/fast').length === 5, 'all five reach /fast');
          assert.equal(receiver.at('/slow').length, 1, 'the slow one still has its first');
          assert.equal((await webhookNamed(store, 'slow')).lastDelivery, null, 'still in flight');
        } finally {
          await deliverer.stop();
        }
      });
    });

    test('a delivery to a private address is refused without WEBHOOK_ALLOW_PRIVATE', async () => {
      await withSetup(backend, async (store, receiver) => {
        await add(store, 'inside', receiver.url('/inside'));
        const counts: DeliveryOutcome[] = [];
        const deliverer = startDeliverer(
          options(store, {
            allowPrivate: false,
            schedule: [60_000],
            onOutcome: (o) => counts.push(o),
          }),
        );
        try {
          await store.create(term(1));
          await eventually(
            async () => (await webhookNamed(store, 'inside')).lastDelivery !== null,
            'an attempt recorded',
          );
          const inside = await webhookNamed(store, 'inside');
          assert.match(
            inside.lastDelivery?.error ?? '',
            /^refused: 127\.0\.0\.1 is a loopback address/,
          );
          assert.equal(inside.lastDelivery?.status, null);
          await eventually(() => counts.length === 1, 'the attempt counted');
          assert.deepEqual(counts, ['refused']);
          assert.equal(receiver.at('/inside').length, 0);
        } finally {
          await deliverer.stop();
        }
      });
    });

    test('after a rotation deliveries verify with the old secret and with the new', async () => {
      await withSetup(backend, async (store, receiver) => {
        const hook = await add(store, 'rotated', receiver.url('/rotated'));
        const deliverer = startDeliverer(options(store));
        try {
          await store.create(term(1));
          await eventually(() => receiver.at('/rotated').length === 1, 'the first delivery');
          const fresh = newSecret();
          assert.ok(await store.rotateWebhookSecret('rotated', fresh, Date.now() + 86_400_000));
          await eventually(
            async () => (await webhookNamed(store, 'rotated')).secrets.length === 2,
            'rotated',
          );
          // The deliverer reads the endpoints on its tick: wait until it signs with both.
          let id = 2;
          await eventually(async () => {
            await store.create(term(id));
            id += 1;
            const last = receiver.at('/rotated').at(-1);
            return last?.signature.split(' ').length === 2;
          }, 'a delivery signed twice');
          const last = receiver.at('/rotated').at(-1);
          assert.ok(last);
          new Verifier(hook.secret).verify(last.body, last.headers);
          new Verifier(fresh).verify(last.body, last.headers);
          assert.throws(() => new Verifier(newSecret()).verify(last.body, last.headers));
        } finally {
          await deliverer.stop();
        }
      });
    });

    test('stop cuts an attempt in flight short after its grace, records nothing and lets go', async () => {
      await withSetup(backend, async (store, receiver) => {
        await add(store, 'stuck', receiver.url('/stuck'));
        receiver.answer('/stuck', (_r, nth) =>
          nth === 1 ? { status: 200, hang: true } : { status: 204 },
        );
        // A lease far longer than the test: the next deliverer gets the endpoint only if let go.
        const first = startDeliverer(options(store, { leaseMs: 600_000, stopGraceMs: 100 }));
        await store.create(term(1));
        await eventually(() => receiver.at('/stuck').length === 1, 'the attempt is in flight');
        await first.stop();
        assert.equal((await webhookNamed(store, 'stuck')).lastDelivery, null, 'nothing recorded');
        const second = startDeliverer(options(store, { leaseMs: 600_000 }));
        try {
          await eventually(() => receiver.at('/stuck').length === 2, 'sent again by the next');
          const [a, b] = receiver.at('/stuck');
          assert.equal(a?.id, b?.id, 'the same change, the same webhook-id');
          await eventually(
            async () => (await webhookNamed(store, 'stuck')).lastDelivery?.status === 204,
            'recorded',
          );
        } finally {
          await second.stop();
        }
      });
    });

    test('two deliverers on one store never both deliver a change; one stopping hands over', async () => {
      const location = await backend.location();
      const one = await location.open();
      const two = await location.open();
      const receiver = await startReceiver();
      // Leases far longer than a stall of a loaded machine: a renewal that commits after its
      // lease ran out lets the other take the endpoint mid-send, which then sends that change
      // again (at least once, as a retry would). The handover itself is stop()'s release.
      const first = startDeliverer(options(one, { leaseMs: 10_000 }));
      const second = startDeliverer(options(two, { leaseMs: 10_000 }));
      let firstStopped = false;
      try {
        await add(one, 'a', receiver.url('/a'));
        await add(one, 'b', receiver.url('/b'));
        for (let id = 1; id <= 20; id += 1) await (id % 2 ? one : two).create(term(id));
        await eventually(
          () => receiver.at('/a').length >= 10 && receiver.at('/b').length >= 10,
          'half of them delivered',
        );
        await first.stop();
        firstStopped = true;
        for (let id = 21; id <= 40; id += 1) await two.create(term(id));
        await eventually(
          () => new Set(receiver.at('/a').map((r) => r.id)).size === 40,
          'all forty reach /a',
          { withinMs: 30_000 },
        );
        await eventually(
          () => new Set(receiver.at('/b').map((r) => r.id)).size === 40,
          'all forty reach /b',
          { withinMs: 30_000 },
        );
        for (const path of ['/a', '/b']) {
          const ids = receiver.at(path).map((r) => r.id);
          assert.equal(ids.length, 40, `${path}: each webhook-id exactly once`);
          const revisions = ids.map((id) => Number(id.split('_')[1]));
          assert.deepEqual(
            revisions,
            [...revisions].sort((x, y) => x - y),
            `${path} in order`,
          );
        }
      } finally {
        if (!firstStopped) await first.stop();
        await second.stop();
        await receiver.close();
        await one.close();
        await two.close();
        await location.dispose();
      }
    });
  });
}
