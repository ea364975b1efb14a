import cluster from 'node:cluster';

/**
 * Questions a worker asks the primary (WORKERS > 1) over node:cluster's channel, for state that
 * must be one for all workers: the counts of the per-client limits.
 */

const ASK = 'glossary:ask';
const ANSWER = 'glossary:answer';

interface Question {
  type: typeof ASK;
  channel: string;
  id: number;
  question: unknown;
}
interface Answer {
  type: typeof ANSWER;
  id: number;
  answer: unknown;
}

const pending = new Map<number, { resolve: (answer: unknown) => void; timer: NodeJS.Timeout }>();
let asked = 0;
let listening = false;

/** The primary's answer on `channel`; rejects when none comes within `timeoutMs`. */
export function askPrimary<A>(channel: string, question: unknown, timeoutMs = 2000): Promise<A> {
  if (!listening) {
    listening = true;
    process.on('message', (message: Partial<Answer>) => {
      if (message?.type !== ANSWER || message.id === undefined) return;
      const waiting = pending.get(message.id);
      if (waiting === undefined) return;
      pending.delete(message.id);
      clearTimeout(waiting.timer);
      waiting.resolve(message.answer);
    });
  }
  return new Promise<A>((resolve, reject) => {
    const id = asked++;
    const timer = setTimeout(() => {
      pending.delete(id);
      reject(new Error(`the primary did not answer on ${channel} in time`));
    }, timeoutMs);
    pending.set(id, { resolve: resolve as (answer: unknown) => void, timer });
    process.send?.({ type: ASK, channel, id, question } satisfies Question);
  });
}

/** In the primary: answers every worker's questions on `channel`. */
export function answerWorkers<Q, A>(channel: string, answer: (question: Q) => A): void {
  cluster.on('message', (worker, message: Partial<Question>) => {
    if (message?.type !== ASK || message.channel !== channel) return;
    const reply = answer(message.question as Q);
    if (worker.isConnected()) worker.send({ type: ANSWER, id: message.id, answer: reply });
  });
}
