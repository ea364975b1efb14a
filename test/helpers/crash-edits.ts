import assert from 'node:assert/strict';
import type { ServerProcess } from './server-process.ts';

/**
 * The editor of the crash cycles: while the creating writers run, it changes terms whose
 * creation was acknowledged (PUT, DELETE, and restore of a deleted one) one request at a time,
 * and keeps a ledger of the state each term must be in. A change answered 200/204 is
 * acknowledged: the term must be found in that state. A change whose answer never came (the
 * server was killed) or was 503 may or may not have happened: the term may be found in the
 * state before it or after it, and is not edited again.
 */

export interface EditedTerm {
  id: number;
  term: string;
  definition: string;
  category: string;
  see_also: number[];
}

interface Ledger {
  /** The acknowledged state; null when deleted. */
  state: EditedTerm | null;
  /** The state of a change in flight when the answer was lost; undefined when none. */
  pending?: EditedTerm | null;
}

export interface EditReport {
  edits: number;
  deletes: number;
  restores: number;
  unanswered: number;
}

type Answer = { status: number; body: unknown } | null;

async function send(
  server: ServerProcess,
  method: string,
  url: string,
  body?: unknown,
): Promise<Answer> {
  try {
    const response = await fetch(server.url + url, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  } catch {
    return null;
  }
}

export class CrashEditor {
  private readonly ledger = new Map<number, Ledger>();
  private readonly editable: number[] = [];
  readonly report: EditReport = { edits: 0, deletes: 0, restores: 0, unanswered: 0 };

  constructor(private readonly rand: (below: number) => number) {}

  /** A creation was acknowledged: the term may be edited from now on. */
  known(term: EditedTerm): void {
    if (this.ledger.has(term.id)) return;
    this.ledger.set(term.id, { state: term });
    this.editable.push(term.id);
  }

  /** Edits until `stopped()` or until the server stops answering. */
  async run(server: ServerProcess, stopped: () => boolean, acknowledge: () => void) {
    while (!stopped()) {
      if (this.editable.length === 0) {
        await new Promise((resolve) => setTimeout(resolve, 5));
        continue;
      }
      // Deleted terms are few among many: pick one now and then, so restores happen too.
      const deleted = this.editable.filter((id) => this.ledger.get(id)?.state === null);
      const pool = deleted.length > 0 && this.rand(2) === 0 ? deleted : this.editable;
      const id = pool[this.rand(pool.length)] as number;
      const at = this.editable.indexOf(id);
      const entry = this.ledger.get(id) as Ledger;
      const change = await this.change(server, id, entry.state);
      if (change === 'unread') continue;
      if (change === 'lost' || change === 'unknown') {
        // Neither acknowledged nor refused for sure: frozen in one of two states.
        this.editable.splice(at, 1);
        this.report.unanswered += 1;
        if (change === 'lost' || stopped()) return;
        continue;
      }
      entry.state = change;
      entry.pending = undefined;
      acknowledge();
    }
  }

  /**
   * One change; what the term is now, 'unknown'/'lost' when the answer did not come, or
   * 'unread' when the history a restore needs could not be read (503: the storage connection
   * was lost), so nothing was asked to change.
   */
  private async change(
    server: ServerProcess,
    id: number,
    state: EditedTerm | null,
  ): Promise<EditedTerm | null | 'unknown' | 'lost' | 'unread'> {
    const entry = this.ledger.get(id) as Ledger;
    let answer: Answer;
    let next: EditedTerm | null;
    if (state === null) {
      const history = await send(server, 'GET', `/terms/${id}/history`);
      if (!history) return 'lost';
      if (history.status === 503) return 'unread';
      assert.equal(history.status, 200, `history of ${id}: ${history.status}`);
      const deleted = (history.body as { revision: number; action: string; term: EditedTerm }[])[0];
      assert.equal(deleted?.action, 'deleted', `the newest entry of deleted term ${id}`);
      next = deleted.term;
      entry.pending = next;
      answer = await send(server, 'POST', `/terms/${id}/restore`, { revision: deleted.revision });
      this.report.restores += 1;
    } else if (this.rand(3) === 0) {
      next = null;
      entry.pending = next;
      answer = await send(server, 'DELETE', `/terms/${id}`);
      this.report.deletes += 1;
    } else {
      next = { ...state, definition: `${state.definition.slice(0, 200)} edit ${this.rand(1e9)}` };
      entry.pending = next;
      answer = await send(server, 'PUT', `/terms/${id}`, next);
      this.report.edits += 1;
    }
    if (!answer) return 'lost';
    if (answer.status === 503) return 'unknown';
    assert.ok([200, 204].includes(answer.status), `a change of ${id} answered ${answer.status}`);
    if (next) assert.deepEqual(answer.body, next);
    return next;
  }

  /** Whether the id was ever edited, and the states it may be found in. */
  allowed(id: number): (EditedTerm | null)[] | undefined {
    const entry = this.ledger.get(id);
    if (!entry || entry.state === undefined) return undefined;
    return entry.pending === undefined ? [entry.state] : [entry.state, entry.pending];
  }

  /** Every id the editor has a ledger for (every acknowledged creation). */
  ids(): number[] {
    return [...this.ledger.keys()];
  }
}
