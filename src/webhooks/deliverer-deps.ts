import type { Config } from '../config.ts';
import type { ChangeFeed } from '../glossary/changes.ts';
import type { WebhookStore } from '../glossary/webhooks.ts';
import type { DeliveryOutcome } from './progress.ts';

/** The slice of the service's logger the deliverer writes to (pino's shape). */
export interface DelivererLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/** What the deliverer and each endpoint's runner work with. */
export interface DelivererDeps {
  store: ChangeFeed & WebhookStore;
  config: Pick<Config, 'webhookAllowPrivate' | 'webhookRetrySchedule' | 'webhookTimeoutMs'>;
  log: DelivererLog;
  /** Told of every attempt recorded (for /metrics). */
  onOutcome?: ((outcome: DeliveryOutcome) => void) | undefined;
  /** This process's lease owner id, random. */
  owner: string;
  now: () => number;
}
