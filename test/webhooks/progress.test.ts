import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MAX_RETRY_AFTER_MS, progressAfter, signingSecrets } from '../../src/webhooks/progress.ts';
import type { SendResult } from '../../src/webhooks/send.ts';

/** What an attempt does to an endpoint's progress, and which secrets sign: pure rules. */

const SCHEDULE = [5000, 300_000];
const NOW = 1_000_000;
const result = (over: Partial<SendResult>): SendResult => ({
  status: 500,
  error: 'HTTP 500',
  refused: false,
  durationMs: 3,
  retryAfterMs: null,
  ...over,
});

describe('progress after an attempt', () => {
  test('a 2xx moves the cursor to the change and clears the attempts', () => {
    assert.deepEqual(
      progressAfter(
        { cursor: 9, attempts: 2 },
        12,
        result({ status: 202, error: null }),
        SCHEDULE,
        NOW,
      ),
      { progress: { cursor: 12, attempts: 0, nextAttemptAt: null }, outcome: 'delivered' },
    );
  });

  test('a failure waits the next step of the schedule, or a longer Retry-After', () => {
    const first = progressAfter({ cursor: 9, attempts: 0 }, 12, result({}), SCHEDULE, NOW);
    assert.deepEqual(first, {
      progress: { cursor: 9, attempts: 1, nextAttemptAt: NOW + 5000 },
      outcome: 'failed',
    });
    const second = progressAfter({ cursor: 9, attempts: 1 }, 12, result({}), SCHEDULE, NOW);
    assert.equal(second.progress.nextAttemptAt, NOW + 300_000);
    const longer = progressAfter(
      { cursor: 9, attempts: 0 },
      12,
      result({ status: 429, retryAfterMs: 60_000 }),
      SCHEDULE,
      NOW,
    );
    assert.equal(longer.progress.nextAttemptAt, NOW + 60_000);
    const shorter = progressAfter(
      { cursor: 9, attempts: 1 },
      12,
      result({ status: 503, retryAfterMs: 1000 }),
      SCHEDULE,
      NOW,
    );
    assert.equal(shorter.progress.nextAttemptAt, NOW + 300_000, 'the schedule is a minimum');
    const years = progressAfter(
      { cursor: 9, attempts: 0 },
      12,
      result({ status: 503, retryAfterMs: 999_999_999_000 }),
      SCHEDULE,
      NOW,
    );
    assert.equal(years.progress.nextAttemptAt, NOW + MAX_RETRY_AFTER_MS, 'a day at most');
    const refused = progressAfter(
      { cursor: 9, attempts: 0 },
      12,
      result({ status: null, error: 'refused: 10.0.0.1 is a private address', refused: true }),
      SCHEDULE,
      NOW,
    );
    assert.equal(refused.outcome, 'refused');
  });

  test('410 disables at once; a failure after the last retry disables with the reason', () => {
    assert.deepEqual(
      progressAfter(
        { cursor: 9, attempts: 0 },
        12,
        result({ status: 410, error: 'HTTP 410' }),
        SCHEDULE,
        NOW,
      ),
      {
        progress: {
          cursor: 9,
          attempts: 1,
          nextAttemptAt: null,
          disabledReason: 'the endpoint answered 410 Gone',
        },
        outcome: 'disabled',
      },
    );
    const exhausted = progressAfter(
      { cursor: 9, attempts: 2 },
      12,
      result({ status: null, error: 'timed out after 10000 ms' }),
      SCHEDULE,
      NOW,
    );
    assert.equal(exhausted.outcome, 'disabled');
    assert.equal(
      exhausted.progress.disabledReason,
      '2 retries failed; last: timed out after 10000 ms',
    );
    const seven = progressAfter(
      { cursor: 9, attempts: 7 },
      12,
      result({}),
      [1, 2, 3, 4, 5, 6, 7],
      NOW,
    );
    assert.equal(seven.progress.disabledReason, '7 retries failed; last: HTTP 500');
  });
});

describe('signing secrets', () => {
  test('the previous secret signs until its time is up, then only the current one', () => {
    const webhook = { secrets: ['whsec_new', 'whsec_old'], previousSecretUntil: NOW + 1 };
    assert.deepEqual(signingSecrets(webhook, NOW), ['whsec_new', 'whsec_old']);
    assert.deepEqual(signingSecrets(webhook, NOW + 1), ['whsec_new']);
    assert.deepEqual(signingSecrets({ secrets: ['whsec_only'], previousSecretUntil: null }, NOW), [
      'whsec_only',
    ]);
  });
});
