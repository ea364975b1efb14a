import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Webhook as Verifier } from 'standardwebhooks';
import { newSecret } from '../../src/webhooks/signing.ts';
import { sampleTerm } from '../helpers/app.ts';
import { backends, type Location } from '../helpers/backends.ts';
import { eventually } from '../helpers/eventually.ts';
import { killLeftovers, type ServerProcess, startServer } from '../helpers/server-process.ts';
import { type Received, startReceiver } from '../webhooks/receiver.ts';

/**
 * The service's own deliverers, in real processes: one deliverer per endpoint across workers
 * (no change sent twice), and nothing lost when the process is SIGKILLed in a burst of writes.
 */

after(killLeftovers);

interface Delivered {
  revision: number;
  type: string;
  id: number;
}

/** Adds endpoints `a` and `b` on the storage; their secrets by name. */
async function addEndpoints(location: Location, url: (path: string) => string) {
  const store = await location.open();
  const secrets = new Map<string, string>();
  try {
    for (const name of ['a', 'b']) {
      const secret = newSecret();
      secrets.set(name, secret);
      const added = await store.addWebhook({
        name,
        url: url(`/${name}`),
        types: [],
        secret,
        createdAt: Date.now(),
      });
      assert.notEqual(added, 'name-taken');
    }
  } finally {
    await store.close();
  }
  return secrets;
}

function verified(received: Received[], secret: string): Delivered[] {
  return received.map(
    (r) => (new Verifier(secret).verify(r.body, r.headers) as { data: Delivered }).data,
  );
}

/** Writers POSTing new terms until `stop()`; the ids the service acknowledged. */
function writers(server: ServerProcess, count: number, from: number) {
  const acknowledged: number[] = [];
  let next = from;
  let stopped = false;
  const one = async () => {
    while (!stopped) {
      const id = next++;
      const response = await fetch(`${server.url}/terms`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(sampleTerm(id)),
      }).catch(() => undefined);
      if (response?.status === 201) acknowledged.push(id);
      else if (!response) return;
    }
  };
  const running = Promise.all(Array.from({ length: count }, one));
  return {
    acknowledged,
    async stop() {
      stopped = true;
      await running;
    },
  };
}

for (const backend of backends()) {
  describe(`webhooks in the service (${backend.name})`, () => {
    test('WORKERS=2: every change reaches each endpoint once, in order', {
      timeout: 90_000,
    }, async () => {
      const location = await backend.location();
      const receiver = await startReceiver();
      try {
        const secrets = await addEndpoints(location, receiver.url);
        const server = await startServer({
          DATABASE_URL: location.url,
          WORKERS: '2',
          WEBHOOK_ALLOW_PRIVATE: 'true',
          WEBHOOK_RETRY_SCHEDULE: '100ms',
        });
        const writing = writers(server, 4, 1);
        await eventually(() => writing.acknowledged.length >= 40, '40 terms written');
        await writing.stop();
        const written = writing.acknowledged.length;
        for (const name of ['a', 'b']) {
          await eventually(
            () => receiver.at(`/${name}`).length >= written,
            () => `${written} deliveries to ${name}, got ${receiver.at(`/${name}`).length}`,
            { withinMs: 30_000 },
          );
          const ids = receiver.at(`/${name}`).map((r) => r.id);
          assert.equal(new Set(ids).size, ids.length, `${name}: no webhook-id delivered twice`);
          const changes = verified(receiver.at(`/${name}`), secrets.get(name) as string);
          const revisions = changes.map((c) => c.revision);
          assert.deepEqual(
            revisions,
            [...revisions].sort((x, y) => x - y),
            `${name}: in order`,
          );
          assert.deepEqual(
            changes.map((c) => c.id).sort((x, y) => x - y),
            [...writing.acknowledged].sort((x, y) => x - y),
          );
        }
        assert.equal((await server.stop('SIGTERM')).code, 0);
      } finally {
        await killLeftovers();
        await receiver.close();
        await location.dispose();
      }
    });

    test('SIGKILL in a burst of writes: after a restart every acknowledged change is delivered', {
      timeout: 90_000,
    }, async () => {
      const location = await backend.location();
      const receiver = await startReceiver();
      // Slower than the writers: changes are waiting when the process dies.
      receiver.answer('/a', () => ({ status: 204, delayMs: 20 }));
      receiver.answer('/b', (_r, nth) => ({ status: nth % 5 === 0 ? 503 : 204, delayMs: 5 }));
      const env = {
        DATABASE_URL: location.url,
        WEBHOOK_ALLOW_PRIVATE: 'true',
        WEBHOOK_RETRY_SCHEDULE: '50ms,50ms,50ms',
      };
      try {
        const secrets = await addEndpoints(location, receiver.url);
        const first = await startServer(env);
        const writing = writers(first, 4, 1);
        await eventually(() => writing.acknowledged.length >= 40, '40 terms written');
        first.child.kill('SIGKILL');
        await first.exited;
        await writing.stop();
        const acknowledged = [...writing.acknowledged].sort((x, y) => x - y);

        const second = await startServer(env);
        for (const name of ['a', 'b']) {
          const created = () =>
            new Set(
              verified(receiver.at(`/${name}`), secrets.get(name) as string)
                .filter((c) => c.type === 'term.created')
                .map((c) => c.id),
            );
          await eventually(
            () => acknowledged.every((id) => created().has(id)),
            () => `${name}: missing ${acknowledged.filter((id) => !created().has(id)).join(',')}`,
            { withinMs: 40_000 },
          );
          // At least once: a change in flight at the crash may come again, never out of order.
          const revisions = verified(receiver.at(`/${name}`), secrets.get(name) as string).map(
            (c) => c.revision,
          );
          assert.deepEqual(
            revisions,
            [...revisions].sort((x, y) => x - y),
            `${name}: in order`,
          );
        }
        assert.equal((await second.stop('SIGTERM')).code, 0);
      } finally {
        await killLeftovers();
        await receiver.close();
        await location.dispose();
      }
    });
  });
}
