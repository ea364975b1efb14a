import cluster from 'node:cluster';
import type { FastifyInstance } from 'fastify';
import client from 'prom-client';
import type { TermStore } from '../store/term-store.ts';

/**
 * Prometheus metrics at GET /metrics (prom-client): every request by route, method and status
 * with its latency, every store operation's latency, the number of terms, and the process's
 * own (CPU, memory, event loop, handles). With WORKERS above 1 any worker answers for all of
 * them: it asks the primary, which gathers and sums every worker's registry. Never rate
 * limited, never behind a token (it holds no glossary content), not in the API document.
 */

const REQUEST_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
];
const ASK = 'glossary:metrics';
const ANSWER = 'glossary:metrics-answer';

export interface Metrics {
  registry: client.Registry;
  /** The store, its every operation timed. */
  store: TermStore;
}

export function createMetrics(store: TermStore): Metrics {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const operations = new client.Histogram({
    name: 'glossary_store_operation_duration_seconds',
    help: 'Time the store took for each operation (a list: until its last term was read).',
    labelNames: ['operation'],
    buckets: REQUEST_BUCKETS,
    registers: [registry],
  });
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
  if (cluster.isWorker) {
    // Constructing one installs prom-client's answer to the primary's requests.
    new client.AggregatorRegistry();
    client.AggregatorRegistry.setRegistries([registry]);
  }
  return { registry, store: timed(store, operations) };
}

/** The store with every method timed under its name. */
function timed(store: TermStore, histogram: client.Histogram): TermStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      if (property === 'list') {
        return async function* (...args: unknown[]) {
          const end = histogram.startTimer({ operation: property });
          try {
            yield* value.apply(target, args);
          } finally {
            end();
          }
        };
      }
      return (...args: unknown[]) => {
        const result = value.apply(target, args);
        if (!(result instanceof Promise)) return result;
        const end = histogram.startTimer({ operation: property });
        return result.finally(end);
      };
    },
  });
}

export function registerMetrics(app: FastifyInstance, { registry }: Metrics): void {
  const requests = new client.Histogram({
    name: 'glossary_http_request_duration_seconds',
    help: 'Requests answered, by route, method and status, with the time each took.',
    labelNames: ['route', 'method', 'status_code'],
    buckets: REQUEST_BUCKETS,
    registers: [registry],
  });
  app.addHook('onResponse', (request, reply, done) => {
    requests.observe(
      {
        route: request.routeOptions.url ?? 'unknown',
        method: request.method,
        status_code: reply.statusCode,
      },
      reply.elapsedTime / 1000,
    );
    done();
  });
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    const text = cluster.isWorker ? await askPrimary() : await registry.metrics();
    return reply.type(registry.contentType).send(text);
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
