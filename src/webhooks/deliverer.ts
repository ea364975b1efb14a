import { randomUUID } from 'node:crypto';
import type { Webhook } from '../glossary/webhooks.ts';
import type { DelivererDeps } from './deliverer-deps.ts';
import { EndpointRunner } from './endpoint-runner.ts';

export interface DelivererOptions extends Omit<DelivererDeps, 'owner' | 'now'> {
  /** How long a stop waits for attempts in flight before cutting them short. */
  stopGraceMs?: number | undefined;
  /** The lease on an endpoint, and how often it is renewed (tests shorten them). */
  leaseMs?: number | undefined;
  renewMs?: number | undefined;
  /** How often the endpoints are listed: new ones, removed ones, ones another process let go. */
  tickMs?: number | undefined;
}

export interface Deliverer {
  /** Ends every runner (attempts in flight get `stopGraceMs`) and lets go of its endpoints. */
  stop(): Promise<void>;
}

/**
 * The webhook deliverer: one per process, every process runs one. Each active endpoint is
 * delivered to by whichever process holds its lease in the store (`claimWebhook`, a random
 * owner id per process): one deliverer per endpoint across workers and instances, so a change
 * is sent twice only as a retry. The lease is short and renewed on a timer, also while an
 * attempt is in flight, so a process that dies lets its endpoints go within seconds and another
 * takes them over on its next tick; an endpoint's runner is independent of the others, so a
 * slow endpoint delays only itself.
 */
export function startDeliverer(options: DelivererOptions): Deliverer {
  const leaseMs = options.leaseMs ?? 6000;
  const renewMs = options.renewMs ?? 2000;
  const tickMs = options.tickMs ?? 1000;
  const stopGraceMs = options.stopGraceMs ?? 5000;
  const deps: DelivererDeps = {
    store: options.store,
    config: options.config,
    log: options.log,
    onOutcome: options.onOutcome,
    owner: randomUUID(),
    now: Date.now,
  };
  const { store, owner, log } = deps;
  const held = new Map<number, { runner: EndpointRunner; ended: Promise<void> }>();
  /**
   * An endpoint another process holds is asked for again only after half a lease: every claim
   * is a write, and the interface does not say whose a lease is. A process that dies lets go
   * within a lease and a half at most.
   */
  const heldElsewhere = new Map<number, number>();
  let stopped = false;

  // Watched only while an endpoint is held: a process that holds none costs the store nothing
  // but the tick's list.
  let unwatch: (() => void) | undefined;
  const wakeAll = () => {
    for (const { runner } of held.values()) runner.wake();
  };

  const hold = (webhook: Webhook) => {
    unwatch ??= store.watchChanges(wakeAll);
    const runner = new EndpointRunner(webhook, deps);
    const ended = runner.done.then(async () => {
      held.delete(webhook.id);
      if (held.size === 0) {
        unwatch?.();
        unwatch = undefined;
      }
      if (!runner.lost) await store.releaseWebhook(webhook.id, owner).catch(() => undefined);
    });
    held.set(webhook.id, { runner, ended });
  };

  /** Claims the active endpoints no one holds; follows the held ones' settings and removals. */
  const poll = async () => {
    const listed = await store.listWebhooks();
    const claimed: number[] = [];
    for (const webhook of listed) {
      if (stopped) return;
      const mine = held.get(webhook.id);
      if (mine) {
        if (webhook.state === 'active') mine.runner.update(webhook);
        else mine.runner.stop(true);
        continue;
      }
      if (webhook.state !== 'active') continue;
      const now = Date.now();
      if ((heldElsewhere.get(webhook.id) ?? 0) > now) continue;
      if (await store.claimWebhook(webhook.id, owner, now, now + leaseMs)) {
        claimed.push(webhook.id);
        heldElsewhere.delete(webhook.id);
      } else {
        heldElsewhere.set(webhook.id, now + leaseMs / 2);
      }
    }
    const present = new Set(listed.map((webhook) => webhook.id));
    for (const [id, { runner }] of held) if (!present.has(id)) runner.stop(true);
    if (claimed.length === 0 || stopped) return;
    // Read again once held: the previous holder may have saved progress since the list.
    for (const webhook of await store.listWebhooks()) {
      if (claimed.includes(webhook.id) && webhook.state === 'active' && !stopped) hold(webhook);
      else if (claimed.includes(webhook.id)) await store.releaseWebhook(webhook.id, owner);
    }
  };

  let polling: Promise<void> | undefined;
  const tick = () => {
    if (polling || stopped) return;
    polling = poll()
      .catch((error: unknown) => log.warn({ err: error }, 'webhook deliverer: the store failed'))
      .finally(() => {
        polling = undefined;
      });
  };

  /** Renews every lease held, attempts in flight included; a lease lost stops its runner. */
  const renew = async () => {
    for (const { runner } of [...held.values()]) {
      const now = Date.now();
      try {
        if (!(await store.claimWebhook(runner.id, owner, now, now + leaseMs))) runner.lose();
        // It ended (and let go) while this renewal ran, and no runner took it since: let go again.
        else if (!held.has(runner.id)) await store.releaseWebhook(runner.id, owner);
      } catch (error) {
        log.warn({ err: error }, 'webhook deliverer: a lease could not be renewed');
      }
    }
  };
  let renewing = false;
  const renewTimer = setInterval(() => {
    if (renewing) return;
    renewing = true;
    void renew().finally(() => {
      renewing = false;
    });
  }, renewMs);
  const tickTimer = setInterval(tick, tickMs);
  tick();

  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(tickTimer);
      await polling;
      const ends = [...held.values()];
      for (const { runner } of ends) runner.stop(false);
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(ends.map(({ ended }) => ended)),
        new Promise((resolve) => {
          grace = setTimeout(resolve, stopGraceMs);
        }),
      ]);
      clearTimeout(grace);
      for (const { runner } of ends) runner.stop(true);
      await Promise.all(ends.map(({ ended }) => ended));
      clearInterval(renewTimer);
      unwatch?.();
    },
  };
}
