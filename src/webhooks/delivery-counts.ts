import { DELIVERY_OUTCOMES, type DeliveryOutcome } from './progress.ts';

/**
 * Delivery attempts by outcome in this process, since it started: the deliverer records,
 * /metrics reads (src/http/plugins/metrics.ts; summed over the workers there).
 */
export class DeliveryCounts {
  private readonly counts = new Map<DeliveryOutcome, number>(
    DELIVERY_OUTCOMES.map((outcome) => [outcome, 0]),
  );

  readonly record = (outcome: DeliveryOutcome): void => {
    this.counts.set(outcome, (this.counts.get(outcome) ?? 0) + 1);
  };

  entries(): [DeliveryOutcome, number][] {
    return [...this.counts];
  }
}
