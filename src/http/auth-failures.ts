import cluster from 'node:cluster';
import { createHash } from 'node:crypto';
import type { RateLimit } from '../config.ts';
import { Remembered, Windows } from './client-windows.ts';
import { answerWorkers, askPrimary } from './primary-channel.ts';

/**
 * The limit on failed authentications (AUTH_FAILURE_LIMIT). The API is public, so RATE_LIMIT is
 * off by default, and a token guesser must still be slowed: once a client's presented tokens
 * have failed `max` times in a window, each of its requests that presents a token is answered
 * 429 until the window ends, before the token is looked at. Only failures count: a client
 * using a valid token never comes near the limit.
 *
 * Tokens being checked count too, while they are: otherwise a guesser sending its guesses all
 * at once would have them all checked before the first failure counted. A request that finds
 * `max` of its client's tokens failed or still being checked is answered 429 with
 * `Retry-After: 1`, as the checks take milliseconds; so a new client sending more than `max`
 * requests at once with a valid token sees the excess refused once, and its retries pass.
 *
 * A token that already succeeded from the same client in the last window still passes (and is
 * checked as ever), so a guesser behind the same address (one NAT, one proxy) does not lock out
 * the people already working there. A token not yet proven from there waits like any guess:
 * letting it through would tell the guesser which guess was right, at full speed.
 *
 * With WORKERS > 1 the primary keeps the counts and the proven tokens, so the limit holds for
 * the service as a whole. Should the primary not answer (it is stopping), a request goes
 * through rather than fail, as with RATE_LIMIT.
 */
export interface AuthFailures {
  readonly limit: RateLimit;
  /** Before a token is checked: whether it may be, or how long the client must wait. */
  attempt(client: string, proof: string): Promise<Attempt>;
  /** After the check the attempt allowed: what it found (`unchecked`: the store failed). */
  settle(client: string, proof: string, attempt: Attempt, outcome: Outcome): Promise<void>;
}

export type Outcome = 'valid' | 'invalid' | 'unchecked';

export interface Attempt {
  /** Milliseconds to wait before presenting a token again; 0 when this one may be checked. */
  wait: number;
  /** Whether the check was counted as under way (until it is settled). */
  counted: boolean;
}

/**
 * What the limit keeps of a presented token: its SHA-256, so neither the memory of the process
 * nor the channel to the primary ever holds a token.
 */
export function proofOf(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('base64');
}

export function createAuthFailures(limit: RateLimit): AuthFailures {
  return cluster.isWorker ? new InPrimary(limit) : new InProcess(limit);
}

const GO: Attempt = { wait: 0, counted: false };
/** How long a check is counted as under way at most: one whose worker died is never settled. */
const CHECK_MS = 10_000;

/** The counts themselves: in the one process, or in the primary for every worker. */
class Tally {
  private readonly failures = new Windows();
  private readonly proven = new Remembered();
  /** Clients' checks under way, by the time each began. */
  private readonly checking = new Map<string, number[]>();

  constructor(private readonly limit: RateLimit) {}

  attempt(client: string, proof: string): Attempt {
    if (this.proven.left(`${client} ${proof}`) > 0) return GO;
    const failed = this.failures.peek(client, this.limit.windowMs);
    if (failed.current >= this.limit.max) return { wait: failed.ttl, counted: false };
    const now = performance.now();
    const checks = (this.checking.get(client) ?? []).filter((start) => start + CHECK_MS > now);
    if (failed.current + checks.length >= this.limit.max) return { wait: 1000, counted: false };
    checks.push(now);
    this.checking.set(client, checks);
    return { wait: 0, counted: true };
  }

  settle(client: string, proof: string, counted: boolean, outcome: Outcome): void {
    if (counted) {
      const checks = this.checking.get(client);
      checks?.shift();
      if (checks?.length === 0) this.checking.delete(client);
    }
    if (outcome === 'valid') this.proven.remember(`${client} ${proof}`, this.limit.windowMs);
    if (outcome === 'invalid') this.failures.count(client, this.limit.windowMs);
  }
}

class InProcess implements AuthFailures {
  private readonly tally: Tally;

  constructor(readonly limit: RateLimit) {
    this.tally = new Tally(limit);
  }

  async attempt(client: string, proof: string): Promise<Attempt> {
    return this.tally.attempt(client, proof);
  }

  async settle(client: string, proof: string, attempt: Attempt, outcome: Outcome): Promise<void> {
    this.tally.settle(client, proof, attempt.counted, outcome);
  }
}

const CHANNEL = 'auth-failures';

type Question =
  | { op: 'attempt'; client: string; proof: string }
  | { op: 'settle'; client: string; proof: string; counted: boolean; outcome: Outcome };

class InPrimary implements AuthFailures {
  /**
   * Tokens this worker told the primary were proven, until the primary forgets them at the
   * earliest: a client working with a valid token asks the primary about twice a window, not
   * on every request.
   */
  private readonly told = new Remembered();

  constructor(readonly limit: RateLimit) {}

  async attempt(client: string, proof: string): Promise<Attempt> {
    if (this.told.left(`${client} ${proof}`) > 0) return GO;
    return askPrimary<Attempt>(CHANNEL, { op: 'attempt', client, proof }).catch(() => GO);
  }

  async settle(client: string, proof: string, attempt: Attempt, outcome: Outcome): Promise<void> {
    const key = `${client} ${proof}`;
    const valid = outcome === 'valid';
    if (!attempt.counted && outcome !== 'invalid') {
      if (!valid || this.told.left(key) > this.limit.windowMs / 2) return;
    }
    const sent = performance.now();
    const question = { op: 'settle', client, proof, counted: attempt.counted, outcome } as const;
    await askPrimary(CHANNEL, question).catch(() => undefined);
    if (valid) this.told.remember(key, this.limit.windowMs - (performance.now() - sent));
  }
}

/** In the primary: one tally for all workers. */
export function answerAuthFailures(limit: RateLimit): void {
  const tally = new Tally(limit);
  answerWorkers(CHANNEL, (question: Question) =>
    question.op === 'attempt'
      ? tally.attempt(question.client, question.proof)
      : tally.settle(question.client, question.proof, question.counted, question.outcome),
  );
}
