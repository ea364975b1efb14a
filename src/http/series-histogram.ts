import type client from 'prom-client';

/** Seconds: from half a millisecond (a read by id) to five seconds. */
export const REQUEST_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5,
];

export interface Series {
  observe(seconds: number): void;
}

/**
 * A Prometheus histogram (seconds, REQUEST_BUCKETS) kept as plain counts per series and
 * given to prom-client's registry as a metric of its own. prom-client's Histogram checks and
 * hashes the labels and looks each bucket up by its bound as text on every observation; on a
 * read by id those two observations took a few per cent of the request (docs/development.md,
 * "Hand-made parts, and why"; `node --import tsx bench/histogram.ts`). Here a series is
 * found by one string key, and its bucket by index.
 */
export class SeriesHistogram {
  private readonly all = new Map<string, { labels: Labels; counts: number[]; sum: number }>();

  constructor(
    private readonly name: string,
    private readonly help: string,
  ) {}

  /** The series of these labels, made on first use; keep it rather than ask again. */
  series(labels: Labels): Series {
    const key = Object.values(labels).join('\u0000');
    const known = this.all.get(key);
    const series = known ?? {
      labels,
      counts: new Array<number>(REQUEST_BUCKETS.length + 1).fill(0),
      sum: 0,
    };
    if (!known) this.all.set(key, series);
    return {
      observe(seconds) {
        let bucket = 0;
        while (bucket < REQUEST_BUCKETS.length && seconds > (REQUEST_BUCKETS[bucket] as number))
          bucket += 1;
        series.counts[bucket] = (series.counts[bucket] as number) + 1;
        series.sum += seconds;
      },
    };
  }

  /** The histogram as prom-client's registry reads a metric (and sums it across workers). */
  metric(): client.Metric {
    const values = () => {
      const samples: { metricName: string; labels: Labels; value: number }[] = [];
      for (const { labels, counts, sum } of this.all.values()) {
        let count = 0;
        for (const [i, bound] of [...REQUEST_BUCKETS, Number.POSITIVE_INFINITY].entries()) {
          count += counts[i] as number;
          samples.push({
            metricName: `${this.name}_bucket`,
            labels: { ...labels, le: bound === Number.POSITIVE_INFINITY ? '+Inf' : bound },
            value: count,
          });
        }
        samples.push({ metricName: `${this.name}_sum`, labels, value: sum });
        samples.push({ metricName: `${this.name}_count`, labels, value: count });
      }
      return samples;
    };
    const { name, help } = this;
    const type = 'histogram';
    const aggregator = 'sum';
    const metric = {
      name,
      help,
      type,
      aggregator,
      get: async () => ({ name, help, type, aggregator, values: values() }),
      reset: () => {
        for (const entry of this.all.values()) {
          entry.counts.fill(0);
          entry.sum = 0;
        }
      },
    };
    // prom-client's registry takes any metric with these members; its types name only its own.
    return metric as unknown as client.Metric;
  }
}

type Labels = Record<string, string | number>;
