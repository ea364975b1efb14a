import assert from 'node:assert/strict';

/**
 * Concurrent writers for the change-feed process tests, each an HTTP client that creates
 * (POST /terms, POST /terms/bulk), edits (PUT), deletes and restores terms, and a ledger of
 * every write and its answer. Each client only touches the ids it created and waits for each
 * answer, so an id's changes happen in the order its client sent them: the feed must show an
 * id's acknowledged writes in that order (`matchAcknowledged`).
 */

export type WriteType = 'term.created' | 'term.updated' | 'term.deleted' | 'term.restored';

export interface Write {
  client: number;
  type: WriteType;
  /** The ids it changes (several for a bulk import, in the batch's order). */
  ids: number[];
  /** The definition sent (creations and edits): the feed's term must show it. */
  definitions: (string | undefined)[];
  /** 2xx: acknowledged; 'unknown': the answer never came (the service was killed). */
  outcome: 'acknowledged' | 'unknown';
}

export interface WriterOptions {
  /** The service URL of each client, by client number modulo its length. */
  urls: string[];
  clients: number;
  stopped: () => boolean;
  /** Called after each acknowledged write. */
  onAcknowledged?: (write: Write) => void;
  /**
   * true: a request that gets no answer ends its client (the service is being killed);
   * false: it fails the run.
   */
  expectCrash?: boolean;
}

export interface ChangeJson {
  revision: number;
  type: string;
  id: number;
  at: string;
  by: string | null;
  term: { id: number; term: string; definition: string };
}

/** A small seeded generator: the same run for the same seed. */
function random(seed: number): (below: number) => number {
  let state = seed >>> 0;
  return (below) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * below);
  };
}

class Unanswered extends Error {}

async function send(url: string, method: string, body?: unknown): Promise<Response> {
  try {
    return await fetch(url, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });
  } catch (error) {
    throw new Unanswered(`${method} ${url}: ${(error as Error).message}`);
  }
}

/** Runs the clients until `stopped()`; resolves with every write each sent, in sending order. */
export async function runWriters(options: WriterOptions): Promise<Write[]> {
  const writes: Write[] = [];
  await Promise.all(
    Array.from({ length: options.clients }, (_, client) => runClient(client, options, writes)),
  );
  return writes;
}

async function runClient(client: number, options: WriterOptions, writes: Write[]): Promise<void> {
  const base = options.urls[client % options.urls.length] as string;
  const rand = random(client + 1);
  let nextId = (client + 1) * 1_000_000;
  const live: number[] = [];
  const deleted: number[] = [];
  const term = (id: number, definition: string) => ({
    id,
    term: `Term ${id}`,
    definition,
    category: 'backend',
    see_also: [],
  });
  let round = 0;
  while (!options.stopped()) {
    round += 1;
    const roll = rand(100);
    const definition = `Written by client ${client} in round ${round}.`;
    const make = (type: WriteType, ids: number[], sent?: string): Write => ({
      client,
      type,
      ids,
      definitions: ids.map(() => sent),
      outcome: 'unknown',
    });
    let write: Write;
    let expected: number;
    let request: () => Promise<Response>;
    if (roll < 30 || live.length === 0) {
      const id = nextId++;
      write = make('term.created', [id], definition);
      expected = 201;
      request = () => send(`${base}/terms`, 'POST', term(id, definition));
    } else if (roll < 45) {
      const ids = Array.from({ length: 2 + rand(5) }, () => nextId++);
      write = make('term.created', ids, definition);
      expected = 207;
      const batch = ids.map((id) => term(id, definition));
      request = () => send(`${base}/terms/bulk`, 'POST', batch);
    } else if (roll < 75 || (roll >= 90 && deleted.length === 0)) {
      const id = live[rand(live.length)] as number;
      write = make('term.updated', [id], definition);
      expected = 200;
      request = () => send(`${base}/terms/${id}`, 'PUT', term(id, definition));
    } else if (roll < 90) {
      const id = live[rand(live.length)] as number;
      write = make('term.deleted', [id]);
      expected = 204;
      request = () => send(`${base}/terms/${id}`, 'DELETE');
    } else {
      const id = deleted[rand(deleted.length)] as number;
      write = make('term.restored', [id]);
      expected = 200;
      // The revision to restore: the deletion, the newest entry of the id's history.
      request = async () => {
        const history = await send(`${base}/terms/${id}/history?limit=1`, 'GET');
        const text = await history.text().catch((error: unknown) => {
          throw new Unanswered(`reading the history: ${(error as Error).message}`);
        });
        assert.equal(history.status, 200, `GET /terms/${id}/history answered ${history.status}`);
        const [newest] = JSON.parse(text) as { revision: number; action: string }[];
        assert.equal(newest?.action, 'deleted', `the newest entry of deleted term ${id}`);
        return send(`${base}/terms/${id}/restore`, 'POST', { revision: newest.revision });
      };
    }
    writes.push(write);
    let response: Response;
    let text: string;
    try {
      response = await request();
      text = await response.text().catch((error: unknown) => {
        throw new Unanswered(`reading an answer: ${(error as Error).message}`);
      });
    } catch (error) {
      if (error instanceof Unanswered && options.expectCrash) return;
      throw error;
    }
    assert.equal(
      response.status,
      expected,
      `client ${client}: ${write.type} of ${write.ids.join(',')} answered ${response.status}`,
    );
    if (expected === 207) {
      const results = (JSON.parse(text) as { status: string }[]).map((item) => item.status);
      assert.deepEqual(
        results,
        write.ids.map(() => 'created'),
        `client ${client}: a bulk import`,
      );
    }
    write.outcome = 'acknowledged';
    if (write.type === 'term.created') live.push(...write.ids);
    const [id] = write.ids as [number];
    if (write.type === 'term.deleted') {
      live.splice(live.indexOf(id), 1);
      deleted.push(id);
    }
    if (write.type === 'term.restored') {
      deleted.splice(deleted.indexOf(id), 1);
      live.push(id);
    }
    options.onAcknowledged?.(write);
  }
}

/**
 * One marker term created through each URL, once the writes being checked have all been
 * answered (or will never be): `settledFeed` reads the feed until these are in it. Returned as
 * acknowledged writes, for the ledger.
 */
export async function markerWrites(urls: string[]): Promise<Write[]> {
  const writes: Write[] = [];
  for (const [i, url] of urls.entries()) {
    const id = 900_000_000 + i;
    const definition = `Marker ${i}: every write checked was answered before it.`;
    const response = await send(`${url}/terms`, 'POST', {
      id,
      term: `Marker ${i}`,
      definition,
      category: 'backend',
    });
    assert.equal(response.status, 201, `the marker through ${url}: ${await response.text()}`);
    writes.push({
      client: -1,
      type: 'term.created',
      ids: [id],
      definitions: [definition],
      outcome: 'acknowledged',
    });
  }
  return writes;
}

/**
 * Checks the feed against the ledger and returns the revision of each acknowledged change.
 * For each id, the feed's changes begin with its acknowledged writes, in order, by type (and
 * by the definition sent, for creations and edits); what follows can only be the one write
 * whose answer never came (the service was killed), and nothing else is in the feed.
 */
export function matchAcknowledged(writes: Write[], feed: ChangeJson[]): Set<number> {
  const byId = new Map<number, ChangeJson[]>();
  for (const change of feed) {
    const list = byId.get(change.id) ?? [];
    list.push(change);
    byId.set(change.id, list);
  }
  const sent = new Map<
    number,
    { type: WriteType; definition?: string; outcome: Write['outcome'] }[]
  >();
  for (const write of writes) {
    write.ids.forEach((id, i) => {
      const list = sent.get(id) ?? [];
      list.push({ type: write.type, definition: write.definitions[i], outcome: write.outcome });
      sent.set(id, list);
    });
  }
  const acknowledged = new Set<number>();
  for (const [id, list] of sent) {
    const changes = byId.get(id) ?? [];
    byId.delete(id);
    const known = list.filter((write) => write.outcome === 'acknowledged');
    const unknown = list.filter((write) => write.outcome === 'unknown');
    // A client stops at its first unanswered write: it is the id's last.
    assert.ok(unknown.length <= 1 && list.at(-1) === (unknown[0] ?? list.at(-1)));
    const expected = known.map((write) => write.type);
    const found = changes.map((change) => change.type);
    assert.deepEqual(
      found.slice(0, known.length),
      expected,
      `id ${id}: the feed's changes (revisions ${changes.map((c) => c.revision).join(',')}) against the acknowledged writes`,
    );
    const extra = found.slice(known.length);
    assert.ok(
      extra.length === 0 || (extra.length === 1 && extra[0] === unknown[0]?.type),
      `id ${id}: the feed has changes no write explains: ${extra.join(',')}`,
    );
    known.forEach((write, i) => {
      const change = changes[i] as ChangeJson;
      if (write.definition !== undefined) {
        assert.equal(
          change.term.definition,
          write.definition,
          `id ${id}, revision ${change.revision}`,
        );
      }
      acknowledged.add(change.revision);
    });
  }
  assert.deepEqual([...byId.keys()], [], 'the feed has changes of ids nobody wrote');
  return acknowledged;
}
