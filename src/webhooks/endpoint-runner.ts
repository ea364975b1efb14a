import { changeType } from '../glossary/changes.ts';
import type { HistoryEntry } from '../glossary/history.ts';
import type { DeliveryAttempt, Webhook, WebhookProgress } from '../glossary/webhooks.ts';
import type { DelivererDeps } from './deliverer-deps.ts';
import { type DeliveryOutcome, progressAfter, signingSecrets } from './progress.ts';
import { send } from './send.ts';
import { deliveryBody, webhookHeaders, webhookId } from './signing.ts';

/** Changes read at a time; a batch of changes the endpoint does not receive is passed over at once. */
const BATCH = 20;
/** A runner waiting for changes looks again this often even if no wake came (rule 3 wakes it sooner). */
const IDLE_MS = 5000;
/** The longest wait one timer holds. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** After the store failed (unavailable, say), the next try. */
const STORE_RETRY_MS = 1000;

/**
 * Delivers to one endpoint while this process holds its lease: one change in flight at a time,
 * in revision order, from the endpoint's cursor. Its progress lives in the store
 * (`saveWebhookProgress`, refused once the lease is lost) and in memory while it runs: as the
 * lease's holder it is the only writer. It ends when stopped, when its endpoint is disabled
 * or removed, or when the lease turns out lost; an attempt cut short by a stop or a lost lease
 * is not recorded, so whoever holds the endpoint next makes it again (at least once).
 */
export class EndpointRunner {
  private webhook: Webhook;
  private stopping = false;
  private woken = false;
  private waiter: (() => void) | undefined;
  private inFlight: AbortController | undefined;
  /** The store refused a save: another owner holds the endpoint now (nothing to release). */
  lost = false;
  readonly done: Promise<void>;

  constructor(
    webhook: Webhook,
    private readonly deps: DelivererDeps,
  ) {
    this.webhook = webhook;
    this.done = this.run();
  }

  get id(): number {
    return this.webhook.id;
  }

  /** Newer settings (a rotated secret, the URL); the progress is this runner's own. */
  update(fresh: Webhook): void {
    const { cursor, attempts, nextAttemptAt } = this.webhook;
    this.webhook = { ...fresh, cursor, attempts, nextAttemptAt };
  }

  /** A change may have been committed: look now. */
  wake(): void {
    this.woken = true;
    this.waiter?.();
  }

  /** Ends after the attempt in flight, if any (`abort`: cut it short too). */
  stop(abort: boolean): void {
    this.stopping = true;
    if (abort) this.inFlight?.abort();
    this.wake();
  }

  /** The lease was lost: stop at once, record nothing more. */
  lose(): void {
    this.lost = true;
    this.stop(true);
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      try {
        const due = (this.webhook.nextAttemptAt ?? 0) - this.deps.now();
        if (due > 0) {
          await this.sleep(due, false);
          continue;
        }
        this.woken = false;
        const changes = await this.deps.store.changesSince(this.webhook.cursor, BATCH);
        if (this.stopping) break;
        const { types } = this.webhook;
        const index =
          types.length === 0 ? 0 : changes.findIndex((entry) => types.includes(changeType(entry)));
        const passed = index === -1 ? changes.at(-1) : changes[index - 1];
        if (
          passed &&
          !(await this.save({ cursor: passed.revision, attempts: 0, nextAttemptAt: null }))
        ) {
          break;
        }
        const next = index === -1 ? undefined : changes[index];
        if (next) await this.deliver(next);
        else if (changes.length < BATCH) await this.sleep(IDLE_MS, true);
      } catch (error) {
        this.deps.log.warn(
          { err: error, webhook: this.webhook.name },
          'webhook deliverer: the store failed',
        );
        await this.sleep(STORE_RETRY_MS, false);
      }
    }
  }

  private async deliver(entry: HistoryEntry): Promise<void> {
    const { webhook, deps } = this;
    const id = webhookId(entry.revision, webhook.id);
    const body = deliveryBody(entry);
    const at = deps.now();
    const abort = new AbortController();
    this.inFlight = abort;
    const result = await send({
      url: webhook.url,
      headers: webhookHeaders(signingSecrets(webhook, at), id, body, at),
      body,
      timeoutMs: deps.config.webhookTimeoutMs,
      allowPrivate: deps.config.webhookAllowPrivate,
      signal: abort.signal,
    });
    this.inFlight = undefined;
    if (abort.signal.aborted) return;
    const { progress, outcome } = progressAfter(
      webhook,
      entry.revision,
      result,
      deps.config.webhookRetrySchedule,
      deps.now(),
    );
    const attempt: DeliveryAttempt = {
      revision: entry.revision,
      at,
      status: result.status,
      error: result.error,
      durationMs: result.durationMs,
    };
    if (!(await this.save(progress, attempt))) return;
    this.count(outcome, entry.revision, result.error);
  }

  private count(outcome: DeliveryOutcome, revision: number, error: string | null): void {
    this.deps.onOutcome?.(outcome);
    const fields = { webhook: this.webhook.name, revision, error };
    if (outcome === 'disabled') {
      this.deps.log.warn({ ...fields, reason: this.webhook.disabledReason }, 'webhook disabled');
      this.stopping = true;
    } else if (outcome !== 'delivered') {
      this.deps.log.info({ ...fields, attempts: this.webhook.attempts }, 'webhook delivery failed');
    }
  }

  /** Stores progress under the lease; false, and the runner ends, once the lease is lost. */
  private async save(progress: WebhookProgress, attempt?: DeliveryAttempt): Promise<boolean> {
    const saved = await this.deps.store.saveWebhookProgress(
      this.webhook.id,
      this.deps.owner,
      progress,
      attempt,
    );
    if (!saved) {
      this.lose();
      return false;
    }
    this.webhook = {
      ...this.webhook,
      cursor: progress.cursor,
      attempts: progress.attempts,
      nextAttemptAt: progress.nextAttemptAt,
      ...(progress.disabledReason === undefined
        ? {}
        : { state: 'disabled', disabledReason: progress.disabledReason }),
      ...(attempt ? { lastDelivery: attempt } : {}),
    };
    return true;
  }

  /** Waits `ms`, or until stopped, or (`wakeable`) until a wake: one that came meanwhile counts. */
  private sleep(ms: number, wakeable: boolean): Promise<void> {
    if (this.stopping || (wakeable && this.woken)) return Promise.resolve();
    return new Promise((resolve) => {
      // A timer holds at most 2^31-1 ms (about 24.8 days); a longer wait wakes and waits on.
      const timer = setTimeout(done, Math.min(ms, MAX_TIMER_MS));
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.waiter = () => {
        if (wakeable || this.stopping) {
          this.waiter = undefined;
          done();
        }
      };
    });
  }
}
