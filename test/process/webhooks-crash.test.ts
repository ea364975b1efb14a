import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { backends } from '../helpers/backends.ts';
import {
  markerWrites,
  matchAcknowledged,
  runWriters,
  type Write,
} from '../helpers/change-writers.ts';
import { killWorkers } from '../helpers/crash-harness.ts';
import { eventually } from '../helpers/eventually.ts';
import { settledFeed } from '../helpers/feed-followers.ts';
import { runCli } from '../helpers/run-cli.ts';
import { killLeftovers, type ServerProcess, startService } from '../helpers/server-process.ts';
import { type Receiver, startReceiver } from '../helpers/webhook-receiver.ts';

/**
 * changes-and-webhooks.md, "Durable": a webhook endpoint added with `glossary webhook add`, a
 * burst of writes from several clients through two service processes (two instances on one
 * PostgreSQL database, or WORKERS=2 on SQLite), every process SIGKILLed in the middle of it, as
 * in a crash of the machine, and started again. Every acknowledged change must then reach the
 * endpoint, signed as Standard Webhooks says (checked by the `standardwebhooks` package), in
 * revision order, a change repeated only as a retry of its own webhook-id (so never by two
 * deliverers at once). The endpoint answers 500 to every 7th request, so retries happen too.
 */

const CLIENTS = 4;
/**
 * The service is killed once this many writes have been acknowledged and the endpoint has had
 * this many requests: in the middle of the writes and of the deliveries alike.
 */
const KILL_AFTER = { writes: 60, deliveries: 20 };

/** Every revision with a delivery the receiver answered 2xx. */
function deliveredRevisions(receiver: Receiver): Set<number> {
  return new Set(receiver.deliveries.filter((d) => d.status < 300).map((d) => d.revision));
}

for (const backend of backends()) {
  describe(`webhooks through a SIGKILL (${backend.name})`, () => {
    test('every acknowledged change of a burst cut by SIGKILL reaches the endpoint after the restart, in order, signed', async (t) => {
      const location = await backend.location();
      const receiver = await startReceiver({ failEvery: 7 });
      let services: ServerProcess[] = [];
      try {
        const cliEnv = {
          ...process.env,
          DATABASE_URL: location.url,
          WEBHOOK_ALLOW_PRIVATE: 'true',
        };
        const added = await runCli(
          ['webhook', 'add', `${receiver.url}/hook`, '--name', 'crash-test', '--create'],
          {
            env: cliEnv,
          },
        );
        assert.equal(added.code, 0, added.stderr);
        const secret = /whsec_[A-Za-z0-9+/]+=*/.exec(added.stdout)?.[0];
        assert.ok(secret, `the secret is printed: ${added.stdout}`);
        receiver.secret = secret;

        const env = {
          DATABASE_URL: location.url,
          WEBHOOK_ALLOW_PRIVATE: 'true',
          WEBHOOK_RETRY_SCHEDULE: '100ms,200ms,500ms',
        };
        // Two processes either way, each with a deliverer: one endpoint, one deliverer at a time.
        const start = async () =>
          backend.name === 'sqlite'
            ? [await startService({ ...env, WORKERS: '2' })]
            : [await startService(env), await startService(env)];
        services = await start();
        const killed = services;
        let acknowledged = 0;
        let killing: Promise<void> | undefined;
        let atKill = { acknowledged: 0, received: 0 };
        const writes: Write[] = await runWriters({
          urls: services.map((service) => service.url),
          clients: CLIENTS,
          // The clients write on until the service no longer answers.
          stopped: () => false,
          expectCrash: true,
          onAcknowledged() {
            acknowledged += 1;
            if (
              !killing &&
              acknowledged >= KILL_AFTER.writes &&
              receiver.deliveries.length >= KILL_AFTER.deliveries
            ) {
              atKill = { acknowledged, received: receiver.deliveries.length };
              killing = Promise.all(
                killed.map(async (service) => {
                  const exit = await service.stop('SIGKILL');
                  assert.equal(exit.signal, 'SIGKILL', `it exited by itself: ${service.stderr()}`);
                  await killWorkers(service);
                }),
              ).then(() => undefined);
            }
          },
        });
        assert.ok(killing, 'the service was killed during the burst');
        await killing;

        services = await start();
        const url = services[0]?.url as string;
        const markers = await markerWrites(services.map((service) => service.url));
        writes.push(...markers);
        const feed = await settledFeed(
          url,
          markers.flatMap((write) => write.ids),
        );
        const acknowledgedRevisions = matchAcknowledged(writes, feed);
        await eventually(
          () => feed.every((change) => deliveredRevisions(receiver).has(change.revision)),
          () => {
            const delivered = deliveredRevisions(receiver);
            const missing = feed.filter((c) => !delivered.has(c.revision)).map((c) => c.revision);
            return `every change delivered; missing ${missing.length}: ${missing.slice(0, 20).join(',')} (${url})`;
          },
          { withinMs: 40_000 },
        );
        for (const revision of acknowledgedRevisions) {
          assert.ok(
            deliveredRevisions(receiver).has(revision),
            `acknowledged ${revision} delivered`,
          );
        }

        assert.deepEqual(
          receiver.rejected,
          [],
          'every request is a delivery with a valid signature',
        );
        const byRevision = new Map(feed.map((change) => [change.revision, change]));
        const idOf = new Map<number, string>();
        const revisionOf = new Map<string, number>();
        let previous: (typeof receiver.deliveries)[number] | undefined;
        for (const delivery of receiver.deliveries) {
          assert.deepEqual(
            delivery.data,
            byRevision.get(delivery.revision),
            'the change as the feed has it',
          );
          assert.equal(delivery.type, delivery.data.type);
          assert.equal(
            idOf.get(delivery.revision) ?? delivery.webhookId,
            delivery.webhookId,
            'one webhook-id per change',
          );
          assert.equal(
            revisionOf.get(delivery.webhookId) ?? delivery.revision,
            delivery.revision,
            'one change per webhook-id',
          );
          idOf.set(delivery.revision, delivery.webhookId);
          revisionOf.set(delivery.webhookId, delivery.revision);
          if (previous) {
            assert.ok(
              delivery.revision >= previous.revision,
              `revision ${delivery.revision} delivered after ${previous.revision}`,
            );
          }
          previous = delivery;
        }
        // Sent again after a success: only the change in flight when the service was killed.
        const successes = new Map<number, number>();
        for (const delivery of receiver.deliveries) {
          if (delivery.status < 300)
            successes.set(delivery.revision, (successes.get(delivery.revision) ?? 0) + 1);
        }
        const repeated = [...successes]
          .filter(([, count]) => count > 1)
          .map(([revision]) => revision);
        assert.ok(
          repeated.length <= 1,
          `delivered more than once after a success: ${repeated.join(',')}`,
        );
        const failed = receiver.deliveries.filter((delivery) => delivery.status >= 300).length;
        assert.ok(failed > 0, 'some attempts failed and were retried');

        // What the CLI reads from the store agrees: the last change delivered, failures recorded.
        const last = feed.at(-1)?.revision;
        let listed = '';
        await eventually(
          async () => {
            listed = (await runCli(['webhook', 'list'], { env: cliEnv })).stdout;
            return new RegExp(`^crash-test .* r${last} 204 +active$`, 'm').test(listed);
          },
          () => `glossary webhook list shows r${last} delivered: ${listed}`,
        );
        const attempts = await runCli(['webhook', 'deliveries', 'crash-test', '--limit', '100'], {
          env: cliEnv,
        });
        assert.match(
          attempts.stdout,
          /^\d+ +\S+ +500 +\d+ ms +HTTP 500$/m,
          'a failed attempt recorded',
        );

        t.diagnostic(
          `SIGKILL sent after ${atKill.acknowledged} acknowledged writes and ${atKill.received} deliveries; ${acknowledged} writes acknowledged in all, ${writes.filter((w) => w.outcome === 'unknown').length} unanswered; ${feed.length} changes in the feed (${acknowledgedRevisions.size} acknowledged); ${receiver.deliveries.length} in all, ${failed} answered 500 and retried, ${repeated.length} change delivered again after a success`,
        );
      } finally {
        await Promise.all(services.map((service) => service.stop()));
        await killLeftovers();
        await receiver.close();
        await location.dispose();
      }
    });
  });
}
