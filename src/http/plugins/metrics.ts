import cluster from 'node:cluster';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import client from 'prom-client';
import type { TermStore } from '../../glossary/term-store.ts';
import { timedStore } from '../../store/timed-store.ts';
import type { DeliveryCounts } from '../../webhooks/delivery-counts.ts';
import { addRouteHook } from '../route-hooks.ts';
import { type Series, SeriesHistogram } from '../series-histogram.ts';

/**
 * Prometheus metrics at GET /metrics (prom-client): every request by route, method and status
 * with its latency, every store operation's latency, the number of terms, webhook deliveries
 * by outcome and each endpoint's lag, and the process's own (CPU, memory, event loop, handles). With WORKERS above 1 any worker answers for all of
 * them: it asks the primary, which gathers and sums every worker's registry. Never rate
 * limited, never behind a token (it holds no glossary content), not in the API document.
 */

const ASK = 'glossary:metrics';
const ANSWER = 'glossary:metrics-answer';

export interface Metrics {
  registry: client.Registry;
  /** The store, its every operation timed. */
  store: TermStore;
}

export function createMetrics(store: TermStore, deliveries?: DeliveryCounts): Metrics {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const operations = new SeriesHistogram(
    'glossary_store_operation_duration_seconds',
    'Time the store took for each operation (a list: until its last term was read).',
  );
  registry.registerMetric(operations.metric());
  new client.Gauge({
    name: 'glossary_terms',
    help: 'Live terms in the glossary.',
    registers: [registry],
    async collect() {
      this.set(await store.count({}));
    },
    // Every worker sees the same glossary: aggregated, the count is not summed.
    aggregator: 'max',
  });
  webhookMetrics(registry, store, deliveries);
  if (cluster.isWorker) {
    // Constructing one installs prom-client's answer to the primary's requests.
    new client.AggregatorRegistry();
    client.AggregatorRegistry.setRegistries([registry]);
  }
  return {
    registry,
    store: timedStore(store, (operation) => {
      const series = operations.series({ operation });
      return (seconds) => series.observe(seconds);
    }),
  };
}

/**
 * Webhook deliveries by outcome (this process's deliverer's; summed over the workers), and each
 * endpoint's lag: how many revisions the glossary is ahead of its cursor (the same in every
 * worker: aggregated, the highest).
 */
function webhookMetrics(
  registry: client.Registry,
  store: TermStore,
  deliveries: DeliveryCounts | undefined,
): void {
  new client.Counter({
    name: 'glossary_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome: delivered, failed, refused (a private address), disabled (410 or the retries exhausted).',
    labelNames: ['outcome'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [outcome, count] of deliveries?.entries() ?? []) this.inc({ outcome }, count);
    },
  });
  new client.Gauge({
    name: 'glossary_webhook_lag_revisions',
    help: "Revisions between the glossary's latest and each webhook endpoint's cursor (changes it has not been given or passed over yet).",
    labelNames: ['webhook'],
    registers: [registry],
    aggregator: 'max',
    async collect() {
      const [latest, webhooks] = await Promise.all([store.latestRevision(), store.listWebhooks()]);
      this.reset();
      for (const webhook of webhooks) {
        this.set({ webhook: webhook.name }, Math.max(0, latest - webhook.cursor));
      }
    },
  });
}

/**
 * Counts every request by route, method and status with the time it took. The route's
 * pattern is taken once per route, when it is registered, so this comes before any route
 * (CORS's OPTIONS route included); requests no route matched count under `unknown`.
 */
export const metrics = fp(
  async (app: FastifyInstance, { metrics }: { metrics: Metrics }) => countRequests(app, metrics),
  { name: 'metrics', fastify: '5.x' },
);

/** `GET /metrics`: the registry's text, summed over the workers when there are several. */
export const metricsRoute = fp(
  async (app: FastifyInstance, { metrics }: { metrics: Metrics }) => {
    const { registry } = metrics;
    app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
      const text = cluster.isWorker ? await askPrimary() : await registry.metrics();
      return reply.type(registry.contentType).send(text);
    });
  },
  { name: 'metrics-route', fastify: '5.x', dependencies: ['metrics'] },
);

function countRequests(app: FastifyInstance, { registry }: Metrics): void {
  const requests = new SeriesHistogram(
    'glossary_http_request_duration_seconds',
    'Requests answered, by route, method and status, with the time each took.',
  );
  registry.registerMetric(requests.metric());
  const observer = (route: string) => {
    // By method, then status: found without making a key on each request.
    const byMethod = new Map<string, Map<number, Series>>();
    return (request: FastifyRequest, reply: FastifyReply) => {
      let byStatus = byMethod.get(request.method);
      if (!byStatus) {
        byStatus = new Map();
        byMethod.set(request.method, byStatus);
      }
      let series = byStatus.get(reply.statusCode);
      if (!series) {
        series = requests.series({ route, method: request.method, status_code: reply.statusCode });
        byStatus.set(reply.statusCode, series);
      }
      series.observe(reply.elapsedTime / 1000);
    };
  };
  app.addHook('onRoute', (route) => {
    const observe = observer(route.url);
    addRouteHook(
      route,
      'onResponse',
      (request: FastifyRequest, reply: FastifyReply, done: () => void) => {
        observe(request, reply);
        done();
      },
    );
  });
  const unknown = observer('unknown');
  app.addHook('onResponse', (request, reply, done) => {
    if (request.is404) unknown(request, reply);
    done();
  });
}

let asked = 0;
/** The primary's sum over every worker (see `answerMetrics`). */
function askPrimary(): Promise<string> {
  const id = `${process.pid}-${asked++}`;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      process.off('message', listen);
      reject(new Error('the primary did not answer with the metrics in time'));
    }, 10_000);
    function listen(message: { type?: string; id?: string; text?: string; error?: string }) {
      if (message?.type !== ANSWER || message.id !== id) return;
      clearTimeout(timer);
      process.off('message', listen);
      if (message.error) reject(new Error(message.error));
      else resolve(message.text ?? '');
    }
    process.on('message', listen);
    process.send?.({ type: ASK, id });
  });
}

/** In the primary: answers each worker's ask with every worker's metrics, summed. */
export function answerMetrics(): void {
  const aggregator = new client.AggregatorRegistry();
  cluster.on('message', (worker, message: { type?: string; id?: string }) => {
    if (message?.type !== ASK) return;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: ANSWER, id: message.id, text }),
      (error: Error) => worker.send({ type: ANSWER, id: message.id, error: error.message }),
    );
  });
}
