import type { ChangeType } from '../glossary/changes.ts';
import type { DeliveryAttempt, Webhook } from '../glossary/webhooks.ts';

/**
 * An endpoint's row as both backends read it (webhooks.ts of each): its columns with the
 * newest attempt's beside them, `types` already decoded (jsonb in PostgreSQL, JSON text in
 * SQLite).
 */
export interface WebhookRow {
  id: number;
  name: string;
  url: string;
  types: ChangeType[];
  secret: string;
  previous_secret: string | null;
  previous_secret_until: number | null;
  created_at: number;
  cursor: number;
  state: 'active' | 'disabled';
  disabled_reason: string | null;
  attempts: number;
  next_attempt_at: number | null;
  /** The newest attempt's columns, null when it has none. */
  last_revision: number | null;
  last_at: number | null;
  last_status: number | null;
  last_error: string | null;
  last_duration_ms: number | null;
}

/** A row of `webhook_deliveries`. */
export interface DeliveryRow {
  revision: number;
  at: number;
  status: number | null;
  error: string | null;
  duration_ms: number;
}

export function toWebhook(row: WebhookRow): Webhook {
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    types: row.types,
    secrets: row.previous_secret === null ? [row.secret] : [row.secret, row.previous_secret],
    previousSecretUntil: row.previous_secret === null ? null : row.previous_secret_until,
    createdAt: row.created_at,
    cursor: row.cursor,
    state: row.state,
    disabledReason: row.disabled_reason,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    lastDelivery:
      row.last_revision === null
        ? null
        : toAttempt({
            revision: row.last_revision,
            at: row.last_at as number,
            status: row.last_status,
            error: row.last_error,
            duration_ms: row.last_duration_ms as number,
          }),
  };
}

export function toAttempt(row: DeliveryRow): DeliveryAttempt {
  return {
    revision: row.revision,
    at: row.at,
    status: row.status,
    error: row.error,
    durationMs: row.duration_ms,
  };
}
