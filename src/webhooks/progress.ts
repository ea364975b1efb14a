import type { Webhook, WebhookProgress } from '../glossary/webhooks.ts';
import type { SendResult } from './send.ts';

/** What became of one attempt, as /metrics counts it. */
/**
 * The longest `Retry-After` honoured: a day, as the longest wait WEBHOOK_RETRY_SCHEDULE takes.
 * An endpoint asking for more (years, say) is asked again after a day.
 */
export const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

export type DeliveryOutcome = 'delivered' | 'failed' | 'refused' | 'disabled';
export const DELIVERY_OUTCOMES: readonly DeliveryOutcome[] = [
  'delivered',
  'failed',
  'refused',
  'disabled',
];

/**
 * The endpoint's progress after an attempt at the change `revision` (the first one after its
 * cursor that it receives). Any 2xx moves the cursor past it. 410 Gone disables the endpoint at
 * once: its owner said it is gone for good. Any other failure (a refused address, a timeout,
 * another status) waits `schedule[attempts - 1]`, or the endpoint's `Retry-After` when that is
 * longer, and, once every wait of the schedule has been waited, disables the endpoint: the
 * first attempt and one retry per entry of the schedule, then it stops.
 */
export function progressAfter(
  webhook: Pick<Webhook, 'cursor' | 'attempts'>,
  revision: number,
  result: SendResult,
  schedule: readonly number[],
  now: number,
): { progress: WebhookProgress; outcome: DeliveryOutcome } {
  if (result.error === null) {
    return {
      progress: { cursor: revision, attempts: 0, nextAttemptAt: null },
      outcome: 'delivered',
    };
  }
  const attempts = webhook.attempts + 1;
  const stay = { cursor: webhook.cursor, attempts };
  if (result.status === 410) {
    return {
      progress: { ...stay, nextAttemptAt: null, disabledReason: 'the endpoint answered 410 Gone' },
      outcome: 'disabled',
    };
  }
  const wait = schedule[attempts - 1];
  if (wait === undefined) {
    const retries = schedule.length === 1 ? '1 retry' : `${schedule.length} retries`;
    return {
      progress: {
        ...stay,
        nextAttemptAt: null,
        disabledReason: `${retries} failed; last: ${result.error}`,
      },
      outcome: 'disabled',
    };
  }
  return {
    progress: {
      ...stay,
      nextAttemptAt: now + Math.max(wait, Math.min(result.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS)),
    },
    outcome: result.refused ? 'refused' : 'failed',
  };
}

/** The secrets that sign at `now`: the current one, and the previous one until its time is up. */
export function signingSecrets(
  webhook: Pick<Webhook, 'secrets' | 'previousSecretUntil'>,
  now: number,
): string[] {
  const [current, ...previous] = webhook.secrets;
  const stillValid = webhook.previousSecretUntil !== null && now < webhook.previousSecretUntil;
  return [...(current === undefined ? [] : [current]), ...(stillValid ? previous : [])];
}
