import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Term } from '../../src/glossary/term.ts';
import { buildApp } from '../../src/http/app.ts';
import { startDeliverer } from '../../src/webhooks/deliverer.ts';
import { DeliveryCounts } from '../../src/webhooks/delivery-counts.ts';
import { newSecret } from '../../src/webhooks/signing.ts';
import { sampleTerm, TEST_CONFIG } from '../helpers/app.ts';
import { backends } from '../helpers/backends.ts';
import { eventually } from '../helpers/eventually.ts';
import { startReceiver } from './receiver.ts';

/** GET /metrics: deliveries by outcome, and each endpoint's lag in revisions. */

function sample(text: string, name: string, labels: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}} `));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

for (const backend of backends()) {
  describe(`webhook metrics (${backend.name})`, () => {
    test('/metrics counts deliveries by outcome and shows each endpoint lag', async () => {
      const store = await backend.open();
      const receiver = await startReceiver();
      const deliveries = new DeliveryCounts();
      const app = await buildApp({ config: TEST_CONFIG, store, logger: false, deliveries });
      receiver.answer('/down', () => ({ status: 500 }));
      for (const name of ['up', 'down']) {
        await store.addWebhook({
          name,
          url: receiver.url(`/${name}`),
          types: [],
          secret: newSecret(),
          createdAt: Date.now(),
        });
      }
      const deliverer = startDeliverer({
        store,
        log: { info() {}, warn() {} },
        config: {
          webhookAllowPrivate: true,
          webhookRetrySchedule: [60_000],
          webhookTimeoutMs: 5000,
        },
        onOutcome: deliveries.record,
        tickMs: 50,
      });
      try {
        await store.create(sampleTerm(1) as Term);
        await store.create(sampleTerm(2) as Term);
        const metrics = async () => (await app.inject({ method: 'GET', url: '/metrics' })).body;
        await eventually(async () => {
          const text = await metrics();
          return (
            sample(text, 'glossary_webhook_deliveries_total', 'outcome="delivered"') === 2 &&
            sample(text, 'glossary_webhook_deliveries_total', 'outcome="failed"') === 1
          );
        }, 'two delivered, one failed');
        const text = await metrics();
        assert.equal(sample(text, 'glossary_webhook_deliveries_total', 'outcome="refused"'), 0);
        assert.equal(sample(text, 'glossary_webhook_deliveries_total', 'outcome="disabled"'), 0);
        assert.equal(sample(text, 'glossary_webhook_lag_revisions', 'webhook="up"'), 0);
        assert.equal(
          sample(text, 'glossary_webhook_lag_revisions', 'webhook="down"'),
          2,
          'the failing endpoint waits on its first change',
        );
      } finally {
        await deliverer.stop();
        await app.close();
        await receiver.close();
        await store.close();
      }
    });
  });
}
