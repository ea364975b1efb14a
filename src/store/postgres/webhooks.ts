import type pg from 'pg';
import type { TermStore } from '../../glossary/term-store.ts';
import { type DeliveryRow, toAttempt, toWebhook, type WebhookRow } from '../webhook-rows.ts';
import { query } from './pool.ts';
import { write } from './transaction.ts';

/** Recent attempts kept per endpoint (the interface promises at least 100). */
export const KEPT_DELIVERIES = 100;

type WebhookMethods = Pick<
  TermStore,
  | 'addWebhook'
  | 'listWebhooks'
  | 'removeWebhook'
  | 'rotateWebhookSecret'
  | 'claimWebhook'
  | 'releaseWebhook'
  | 'saveWebhookProgress'
  | 'webhookDeliveries'
>;

const COLUMNS = `w.id, w.name, w.url, w.types, w.secret, w.previous_secret,
  w.previous_secret_until, w.created_at, w.cursor, w.state, w.disabled_reason, w.attempts,
  w.next_attempt_at, d.revision AS last_revision, d.at AS last_at, d.status AS last_status,
  d.error AS last_error, d.duration_ms AS last_duration_ms`;
// The newest attempt of each endpoint, through the primary key (webhook_id, n).
const LAST = `LEFT JOIN LATERAL (
    SELECT revision, at, status, error, duration_ms FROM webhook_deliveries
    WHERE webhook_id = w.id ORDER BY n DESC LIMIT 1) d ON true`;

/**
 * A new endpoint's cursor is the highest revision drawn (feed.ts `DRAWN`), read in the
 * transaction that adds it: it receives the changes drawn after it.
 */
const ADD = `
  WITH added AS (
    INSERT INTO webhooks (name, url, types, secret, created_at, cursor)
    SELECT $1, $2, $3::jsonb, $4, $5,
           CASE WHEN is_called THEN last_value ELSE last_value - 1 END FROM term_revision
    ON CONFLICT (name) DO NOTHING
    RETURNING *
  )
  SELECT ${COLUMNS} FROM added w ${LAST}`;

/**
 * Stores progress only while `owner` holds the lease (no other owner claimed it since; its
 * expiry alone does not refuse, as on SQLite: until another owner claims it, nobody else
 * sends), the attempt with it, and keeps the newest KEPT_DELIVERIES attempts.
 */
const PROGRESS = `
  UPDATE webhooks SET cursor = $3, attempts = $4, next_attempt_at = $5,
    state = CASE WHEN $6::text IS NULL THEN state ELSE 'disabled' END,
    disabled_reason = coalesce($6::text, disabled_reason)
  WHERE id = $1 AND lease_owner = $2`;
const RECORD = `
  INSERT INTO webhook_deliveries (webhook_id, revision, at, status, error, duration_ms)
  VALUES ($1, $2, $3, $4, $5, $6)`;
const PRUNE = `
  DELETE FROM webhook_deliveries WHERE webhook_id = $1 AND n <=
    (SELECT n FROM webhook_deliveries WHERE webhook_id = $1 ORDER BY n DESC
     LIMIT 1 OFFSET ${KEPT_DELIVERIES})`;

/**
 * The webhook endpoints' part of the store (webhooks.ts), kept with the terms so that every
 * instance sees the same endpoints; `remember` keeps a write's storage failure. A lease is a
 * conditional UPDATE of the endpoint's row: concurrent claims queue on the row lock and each
 * sees the one before, so one owner at a time holds it, in any number of instances.
 */
export function webhookMethods(
  pool: pg.Pool,
  remember: <T>(work: () => Promise<T>) => Promise<T>,
): WebhookMethods {
  const writing = <T>(work: (client: pg.PoolClient) => Promise<T>) =>
    remember(() => write(pool, async (client) => ({ result: await work(client), changed: false })));
  return {
    async addWebhook(webhook) {
      return writing(async (client) => {
        const { rows } = await client.query<WebhookRow>(ADD, [
          webhook.name,
          webhook.url,
          JSON.stringify(webhook.types),
          webhook.secret,
          webhook.createdAt,
        ]);
        const [row] = rows;
        return row ? toWebhook(row) : 'name-taken';
      });
    },
    async listWebhooks() {
      const rows = await query<WebhookRow>(
        pool,
        `SELECT ${COLUMNS} FROM webhooks w ${LAST} ORDER BY w.name`,
      );
      return rows.map(toWebhook);
    },
    async removeWebhook(name) {
      // Its attempts go with it (ON DELETE CASCADE).
      return writing(async (client) => {
        const { rowCount } = await client.query('DELETE FROM webhooks WHERE name = $1', [name]);
        return (rowCount ?? 0) > 0;
      });
    },
    async rotateWebhookSecret(name, secret, previousUntil) {
      // Every right-hand side reads the row as it was: the current secret moves down.
      return writing(async (client) => {
        const { rowCount } = await client.query(
          `UPDATE webhooks SET previous_secret = secret, secret = $2, previous_secret_until = $3
           WHERE name = $1`,
          [name, secret, previousUntil],
        );
        return (rowCount ?? 0) > 0;
      });
    },
    async claimWebhook(id, owner, now, until) {
      // Free, expired at `now`, or already ours.
      return writing(async (client) => {
        const { rowCount } = await client.query(
          `UPDATE webhooks SET lease_owner = $2, lease_until = $4
           WHERE id = $1 AND (lease_owner IS NULL OR lease_owner = $2 OR lease_until <= $3)`,
          [id, owner, now, until],
        );
        return (rowCount ?? 0) > 0;
      });
    },
    async releaseWebhook(id, owner) {
      await writing((client) =>
        client.query(
          `UPDATE webhooks SET lease_owner = NULL, lease_until = NULL
           WHERE id = $1 AND lease_owner = $2`,
          [id, owner],
        ),
      );
    },
    async saveWebhookProgress(id, owner, progress, attempt) {
      return writing(async (client) => {
        const { rowCount } = await client.query(PROGRESS, [
          id,
          owner,
          progress.cursor,
          progress.attempts,
          progress.nextAttemptAt,
          progress.disabledReason ?? null,
        ]);
        if (!rowCount) return false;
        if (attempt) {
          const { revision, at, status, error, durationMs } = attempt;
          await client.query(RECORD, [id, revision, at, status, error, durationMs]);
          await client.query(PRUNE, [id]);
        }
        return true;
      });
    },
    async webhookDeliveries(name, limit) {
      const rows = await query<DeliveryRow & { found: boolean }>(
        pool,
        `SELECT d.revision, d.at, d.status, d.error, d.duration_ms, d.revision IS NOT NULL AS found
         FROM webhooks w LEFT JOIN LATERAL (
           SELECT revision, at, status, error, duration_ms FROM webhook_deliveries
           WHERE webhook_id = w.id ORDER BY n DESC LIMIT $2) d ON true
         WHERE w.name = $1`,
        [name, Math.max(0, Math.floor(limit))],
      );
      if (rows.length === 0) return undefined;
      return rows.flatMap((row) => (row.found ? [toAttempt(row)] : []));
    },
  };
}
