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
  /** Milliseconds the client must wait before presenting this token; 0 when it may now. */
  wait(client: string, proof: string): Promise<number>;
  failed(client: string): Promise<void>;
  succeeded(client: string, proof: string): Promise<void>;
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

/** The counts themselves: in the one process, or in the primary for every worker. */
class Tally {
  private readonly failures = new Windows();
  private readonly proven = new Remembered();

  constructor(private readonly limit: RateLimit) {}

  wait(client: string, proof: string): number {
    if (this.proven.left(`${client} ${proof}`) > 0) return 0;
    const { current, ttl } = this.failures.peek(client, this.limit.windowMs);
    return current >= this.limit.max ? ttl : 0;
  }

  failed(client: string): void {
    this.failures.count(client, this.limit.windowMs);
  }

  succeeded(client: string, proof: string): void {
    this.proven.remember(`${client} ${proof}`, this.limit.windowMs);
  }
}

class InProcess implements AuthFailures {
  private readonly tally: Tally;

  constructor(readonly limit: RateLimit) {
    this.tally = new Tally(limit);
  }

  async wait(client: string, proof: string): Promise<number> {
    return this.tally.wait(client, proof);
  }

  async failed(client: string): Promise<void> {
    this.tally.failed(client);
  }

  async succeeded(client: string, proof: string): Promise<void> {
    this.tally.succeeded(client, proof);
  }
}

const CHANNEL = 'auth-failures';

type Question =
  | { op: 'wait'; client: string; proof: string }
  | { op: 'failed'; client: string }
  | { op: 'succeeded'; client: string; proof: string };

class InPrimary implements AuthFailures {
  /**
   * Tokens this worker told the primary were proven, until the primary forgets them at the
   * earliest: a client working with a valid token asks the primary about twice a window, not
   * on every request.
   */
  private readonly told = new Remembered();

  constructor(readonly limit: RateLimit) {}

  async wait(client: string, proof: string): Promise<number> {
    if (this.told.left(`${client} ${proof}`) > 0) return 0;
    return ask<number>({ op: 'wait', client, proof }, 0);
  }

  async failed(client: string): Promise<void> {
    await ask({ op: 'failed', client }, undefined);
  }

  async succeeded(client: string, proof: string): Promise<void> {
    const key = `${client} ${proof}`;
    if (this.told.left(key) > this.limit.windowMs / 2) return;
    const sent = Date.now();
    await ask({ op: 'succeeded', client, proof }, undefined);
    this.told.remember(key, this.limit.windowMs - (Date.now() - sent));
  }
}

function ask<A>(question: Question, otherwise: A): Promise<A> {
  return askPrimary<A>(CHANNEL, question).catch(() => otherwise);
}

/** In the primary: one tally for all workers. */
export function answerAuthFailures(limit: RateLimit): void {
  const tally = new Tally(limit);
  answerWorkers(CHANNEL, (question: Question) => {
    switch (question.op) {
      case 'wait':
        return tally.wait(question.client, question.proof);
      case 'failed':
        return tally.failed(question.client);
      case 'succeeded':
        return tally.succeeded(question.client, question.proof);
    }
  });
}
