import type { ChangeType } from './changes.ts';

/**
 * Webhook endpoints, kept next to the terms (like tokens) so that every worker and instance
 * sees the same endpoints, and their delivery progress: the deliverer (src/webhooks/) follows
 * the change feed from each endpoint's `cursor`. What is still to be delivered is therefore
 * known from the history entries each change wrote in its own transaction: a crash at any
 * moment loses no delivery.
 */
export interface Webhook {
  /** Assigned by the store, never reused. */
  id: number;
  name: string;
  url: string;
  /** The change types it receives; empty: all of them. */
  types: ChangeType[];
  /**
   * Signing secrets (`whsec_` + base64), the newest first; after a rotation the previous one
   * stays until `previousSecretUntil`, and every delivery is signed with each.
   */
  secrets: string[];
  /** Milliseconds since the epoch; when the previous secret stops signing (null: none). */
  previousSecretUntil: number | null;
  /** Milliseconds since the epoch. */
  createdAt: number;
  /** The revision of the last change delivered or passed over; starts at the revision current when it was added. */
  cursor: number;
  state: 'active' | 'disabled';
  /** Why it was disabled (410, retries exhausted), or null. */
  disabledReason: string | null;
  /** Failed attempts at the change after `cursor` so far. */
  attempts: number;
  /** When the next attempt is due (ms since the epoch), or null: at once. */
  nextAttemptAt: number | null;
  /** The most recent attempt, if any. */
  lastDelivery: DeliveryAttempt | null;
}

/** One attempt at delivering one change to one endpoint. */
export interface DeliveryAttempt {
  revision: number;
  /** When it was made, ms since the epoch. */
  at: number;
  /** The endpoint's HTTP status, or null when none came (refused, timed out, unreachable). */
  status: number | null;
  /** What went wrong, or null on success. */
  error: string | null;
  /** How long it took, in milliseconds. */
  durationMs: number;
}

/** What `saveWebhookProgress` stores: the endpoint's state after an attempt (or a skip). */
export interface WebhookProgress {
  cursor: number;
  attempts: number;
  nextAttemptAt: number | null;
  /** Set: the endpoint is disabled for this reason. */
  disabledReason?: string | undefined;
}

export interface NewWebhook {
  name: string;
  url: string;
  types: ChangeType[];
  secret: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
}

/**
 * The rules every backend keeps (test/store/webhooks-contract.test.ts):
 * - A new endpoint's cursor is `latestRevision()` read in the transaction that adds it.
 * - One deliverer per endpoint: `claimWebhook` gives an endpoint to one owner at a time (a lease
 *   until `until`, renewed by calling it again), whatever the number of processes and
 *   instances; `saveWebhookProgress` stores nothing (false) unless `owner` holds the lease.
 * - Recent attempts: `webhookDeliveries` keeps at least the last 100 attempts of an endpoint.
 */
export interface WebhookStore {
  addWebhook(webhook: NewWebhook): Promise<Webhook | 'name-taken'>;
  /** Every endpoint, by name. */
  listWebhooks(): Promise<Webhook[]>;
  /** Removes it and its attempts; false when no endpoint has that name. */
  removeWebhook(name: string): Promise<boolean>;
  /** `secret` becomes the signing secret; the current one keeps signing until `previousUntil`. */
  rotateWebhookSecret(name: string, secret: string, previousUntil: number): Promise<boolean>;
  /**
   * Gives the endpoint to `owner` until `until` (ms since the epoch) when no other owner holds
   * it at `now`, or renews `owner`'s lease; true when `owner` holds it afterwards.
   */
  claimWebhook(id: number, owner: string, now: number, until: number): Promise<boolean>;
  /** Lets go of the endpoint (a stopping deliverer), if `owner` holds it. */
  releaseWebhook(id: number, owner: string): Promise<void>;
  /**
   * Stores the endpoint's progress, and `attempt` among its recent attempts, in one
   * transaction, only while `owner` holds its lease; false (nothing stored) otherwise.
   */
  saveWebhookProgress(
    id: number,
    owner: string,
    progress: WebhookProgress,
    attempt?: DeliveryAttempt,
  ): Promise<boolean>;
  /** The endpoint's recent attempts, newest first, at most `limit`; undefined: no such name. */
  webhookDeliveries(name: string, limit: number): Promise<DeliveryAttempt[] | undefined>;
}
