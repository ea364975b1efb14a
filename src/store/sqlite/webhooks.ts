import type Database from 'better-sqlite3';
import type { ChangeType } from '../../glossary/changes.ts';
import type { TermStore } from '../../glossary/term-store.ts';
import type { Webhook } from '../../glossary/webhooks.ts';
import { type DeliveryRow, toAttempt, toWebhook, type WebhookRow } from '../webhook-rows.ts';
import { guard } from './errors.ts';

/** Recent attempts kept per endpoint (the interface promises at least 100). */
export const KEPT_DELIVERIES = 100;

/** An endpoint's row as SQLite gives it: its types as JSON text. */
type StoredRow = Omit<WebhookRow, 'types'> & { types: string };

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
// The newest attempt of each endpoint, through `webhook_deliveries_by_webhook`.
const LAST = `LEFT JOIN webhook_deliveries d ON d.seq =
  (SELECT max(seq) FROM webhook_deliveries WHERE webhook_id = w.id)`;

/**
 * The webhook endpoints' part of the store (webhooks.ts); `write` runs a write transaction
 * (`BEGIN IMMEDIATE`, durable, remembered). Every process on the file takes the same write
 * lock, so a lease is claimed, and progress saved under it, by one owner at a time.
 */
export function webhookMethods(
  db: Database.Database,
  write: <T>(work: () => T) => T,
): WebhookMethods {
  // The cursor is the revision read in the transaction that adds the endpoint: it receives
  // exactly the changes committed after it.
  const insert = db.prepare<
    { name: string; url: string; types: string; secret: string; created_at: number },
    { id: number }
  >(
    `INSERT INTO webhooks (name, url, types, secret, created_at, cursor)
     VALUES (@name, @url, @types, @secret, @created_at, (SELECT revision FROM glossary_state))
     ON CONFLICT (name) DO NOTHING RETURNING id`,
  );
  const byId = db.prepare<[number], StoredRow>(
    `SELECT ${COLUMNS} FROM webhooks w ${LAST} WHERE w.id = ?`,
  );
  const all = db.prepare<[], StoredRow>(
    `SELECT ${COLUMNS} FROM webhooks w ${LAST} ORDER BY w.name`,
  );
  const idOf = db.prepare<[string], number>('SELECT id FROM webhooks WHERE name = ?').pluck();
  const removeDeliveries = db.prepare<[number]>(
    'DELETE FROM webhook_deliveries WHERE webhook_id = ?',
  );
  const remove = db.prepare<[number]>('DELETE FROM webhooks WHERE id = ?');
  // SQLite reads every right-hand side from the row as it was: the current secret moves down.
  const rotate = db.prepare<[string, number, string]>(
    `UPDATE webhooks SET previous_secret = secret, secret = ?, previous_secret_until = ?
     WHERE name = ?`,
  );
  // Free, expired at `now`, or already ours.
  const claim = db.prepare<{ id: number; owner: string; now: number; until: number }>(
    `UPDATE webhooks SET lease_owner = @owner, lease_until = @until
     WHERE id = @id AND (lease_owner IS NULL OR lease_owner = @owner OR lease_until <= @now)`,
  );
  const release = db.prepare<[number, string]>(
    `UPDATE webhooks SET lease_owner = NULL, lease_until = NULL
     WHERE id = ? AND lease_owner = ?`,
  );
  // Held: the lease is still `owner`'s (no other owner has claimed it since). Its expiry
  // alone does not refuse: until another owner claims it, no other deliverer sends anything.
  const progress = db.prepare<{
    id: number;
    owner: string;
    cursor: number;
    attempts: number;
    next_attempt_at: number | null;
    disabled_reason: string | null;
  }>(
    `UPDATE webhooks SET cursor = @cursor, attempts = @attempts,
                         next_attempt_at = @next_attempt_at,
                         state = CASE WHEN @disabled_reason IS NULL THEN state ELSE 'disabled' END,
                         disabled_reason = coalesce(@disabled_reason, disabled_reason)
     WHERE id = @id AND lease_owner = @owner`,
  );
  const record = db.prepare<[number, number, number, number | null, string | null, number]>(
    `INSERT INTO webhook_deliveries (webhook_id, revision, at, status, error, duration_ms)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const prune = db.prepare<{ id: number; keep: number }>(
    `DELETE FROM webhook_deliveries WHERE webhook_id = @id AND seq <=
       (SELECT seq FROM webhook_deliveries WHERE webhook_id = @id
        ORDER BY seq DESC LIMIT 1 OFFSET @keep)`,
  );
  const deliveries = db.prepare<[number, number], DeliveryRow>(
    `SELECT revision, at, status, error, duration_ms FROM webhook_deliveries
     WHERE webhook_id = ? ORDER BY seq DESC LIMIT ?`,
  );

  return {
    async addWebhook(webhook) {
      return write(() => {
        const added = insert.get({
          name: webhook.name,
          url: webhook.url,
          types: JSON.stringify(webhook.types),
          secret: webhook.secret,
          created_at: webhook.createdAt,
        });
        if (!added) return 'name-taken';
        return fromStored(byId.get(added.id) as StoredRow);
      });
    },
    async listWebhooks() {
      return guard(() => all.all().map(fromStored));
    },
    async removeWebhook(name) {
      return write(() => {
        const id = idOf.get(name);
        if (id === undefined) return false;
        removeDeliveries.run(id);
        remove.run(id);
        return true;
      });
    },
    async rotateWebhookSecret(name, secret, previousUntil) {
      return write(() => rotate.run(secret, previousUntil, name).changes > 0);
    },
    async claimWebhook(id, owner, now, until) {
      return write(() => claim.run({ id, owner, now, until }).changes > 0);
    },
    async releaseWebhook(id, owner) {
      write(() => release.run(id, owner));
    },
    async saveWebhookProgress(id, owner, state, attempt) {
      return write(() => {
        const saved = progress.run({
          id,
          owner,
          cursor: state.cursor,
          attempts: state.attempts,
          next_attempt_at: state.nextAttemptAt,
          disabled_reason: state.disabledReason ?? null,
        });
        if (saved.changes === 0) return false;
        if (attempt) {
          const { revision, at, status, error, durationMs } = attempt;
          record.run(id, revision, at, status, error, durationMs);
          prune.run({ id, keep: KEPT_DELIVERIES });
        }
        return true;
      });
    },
    async webhookDeliveries(name, limit) {
      return guard(() => {
        const id = idOf.get(name);
        if (id === undefined) return undefined;
        return deliveries.all(id, Math.max(0, Math.floor(limit))).map(toAttempt);
      });
    },
  };
}

function fromStored(row: StoredRow): Webhook {
  return toWebhook({ ...row, types: JSON.parse(row.types) as ChangeType[] });
}
