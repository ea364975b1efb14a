import { createHmac, randomBytes } from 'node:crypto';
import { changeRecord } from '../glossary/changes.ts';
import type { HistoryEntry } from '../glossary/history.ts';

/**
 * Standard Webhooks 1.0 (https://www.standardwebhooks.com/): what a receiver verifies with
 * any of its libraries. The test suite verifies with the `standardwebhooks` npm package.
 */

const PREFIX = 'whsec_';

/** A new signing secret: `whsec_` and the base64 of 32 random bytes, shown to its owner once. */
export function newSecret(): string {
  return `${PREFIX}${randomBytes(32).toString('base64')}`;
}

/** Whether `secret` is one `newSecret` could have made (the key decodes to 24 to 64 bytes). */
export function isSecret(secret: string): boolean {
  if (!secret.startsWith(PREFIX)) return false;
  const key = secret.slice(PREFIX.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(key)) return false;
  const bytes = Buffer.from(key, 'base64').length;
  return bytes >= 24 && bytes <= 64;
}

/**
 * The `webhook-id` of one change to one endpoint: the same for each retry of it, so a
 * receiver can drop a delivery it has already handled; different per endpoint, as the
 * specification asks of a message id.
 */
export function webhookId(revision: number, endpointId: number): string {
  return `msg_${revision}_${endpointId}`;
}

/**
 * The JSON body of a change's delivery: `{"type", "timestamp", "data"}`, `data` the change as
 * GET /changes shows it, `timestamp` when it was made (the same for every retry).
 */
export function deliveryBody(entry: HistoryEntry): string {
  const data = changeRecord(entry);
  return JSON.stringify({ type: data.type, timestamp: data.at, data });
}

/**
 * `webhook-signature`: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` for each secret,
 * space-separated; after a rotation both the new and the previous secret sign, so a
 * receiver that still holds the previous one keeps verifying.
 */
export function signature(
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  body: string,
): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(
        secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret,
        'base64',
      );
      const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`);
      return `v1,${mac.digest('base64')}`;
    })
    .join(' ');
}

/** The three Standard Webhooks headers of one attempt, stamped with its own time. */
export function webhookHeaders(
  secrets: readonly string[],
  id: string,
  body: string,
  now: number,
): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signature(secrets, id, timestamp, body),
  };
}
