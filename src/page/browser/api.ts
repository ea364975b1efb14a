import type { Category, Term } from '../../glossary/term.ts';
import type { BulkItemResult, HistoryEntry, ValidationFault } from '../../http/wire.ts';
import { sessionToken, tokenFromOtherTabs } from './token-share.ts';

/** The public HTTP API, as the page uses it (same origin, so no base address). */

export type { BulkItemResult, Category, HistoryEntry, Term, ValidationFault };

/** A refusal or failure, already in words for people. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status = 0,
  ) {
    super(message);
  }
}

/** The service needs a token for this (401), or a writing one (403). */
export class TokenNeeded extends ApiError {}

/** The term changed since it was read (412). */
export class StaleTerm extends ApiError {}

/** The service refused the fields (422): its faults, for the form to show. */
export class Invalid extends ApiError {
  constructor(readonly faults: ValidationFault[]) {
    super('Some fields need another look.', 422);
  }
}

/** The token for this browser session, shared by the glossary's open tabs (token-share.ts). */
export const token = sessionToken;

async function request(path: string, init: RequestInit = {}): Promise<Response> {
  const response = await send(path, init);
  // Refused without a token: another open tab may hold one; then try once more with it.
  if (response.status === 401 && token.get() === null && (await tokenFromOtherTabs())) {
    return judge(await send(path, init));
  }
  return judge(response);
}

async function send(path: string, init: RequestInit): Promise<Response> {
  const secret = token.get();
  let response: Response;
  try {
    response = await fetch(path, {
      ...init,
      headers: {
        accept: 'application/json',
        ...(secret ? { authorization: `Bearer ${secret}` } : {}),
        ...init.headers,
      },
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError('The glossary cannot be reached. Check the connection and try again.');
  }
  return response;
}

/** The response when it is a success; otherwise its refusal, in words for people. */
async function judge(response: Response): Promise<Response> {
  if (response.ok) return response;
  const body = (await response.json().catch(() => null)) as { detail?: unknown } | null;
  const detail = typeof body?.detail === 'string' ? body.detail : '';
  switch (response.status) {
    case 401:
      throw new TokenNeeded(
        detail === 'Invalid token.'
          ? 'That token is not valid (it may have been revoked). Enter another one.'
          : 'This glossary needs a token for that. Enter yours to go on.',
        401,
      );
    case 403:
      throw new TokenNeeded('Your token may only read. Enter a token that may write.', 403);
    case 412:
      throw new StaleTerm(
        'Someone changed this term while you were looking at it. Reload it to see their change.',
        412,
      );
    case 422:
      if (Array.isArray(body?.detail)) throw new Invalid(body.detail as ValidationFault[]);
      break;
    case 429:
      throw new ApiError('Too many requests for now. Wait a moment and try again.', 429);
    case 503:
      throw new ApiError(
        'The glossary is busy or its storage is unavailable. Try again soon.',
        503,
      );
  }
  if (response.status === 404 && detail === 'Term not found') {
    throw new ApiError('That term does not exist (any more).', 404);
  }
  throw new ApiError(
    `Something went wrong (the service answered ${response.status}${detail ? `: ${detail}` : ''}).`,
    response.status,
  );
}

/** What the list shows: a search (ranked) or the alphabetical list from a place in it. */
export interface View {
  q: string;
  category: string;
  /** With no q: the place in the alphabet the list starts at (`from`). */
  from: string;
  offset: number;
}

export interface Page {
  terms: Term[];
  total: number;
}

export const PAGE_SIZE = 50;

function listQuery(view: View, limit: number, offset: number): URLSearchParams {
  const query = new URLSearchParams();
  if (view.q.trim()) query.set('q', view.q);
  else {
    query.set('sort', 'term');
    if (view.from) query.set('from', view.from);
  }
  if (view.category) query.set('category', view.category);
  query.set('limit', String(limit));
  query.set('offset', String(offset));
  return query;
}

export async function listPage(view: View, signal?: AbortSignal): Promise<Page> {
  const response = await request(`/terms?${listQuery(view, PAGE_SIZE, view.offset)}`, {
    signal: signal ?? null,
  });
  return {
    terms: (await response.json()) as Term[],
    total: Number(response.headers.get('x-total-count') ?? 0),
  };
}

/** The view's first term and how many terms it holds (its `X-Total-Count`): one term asked for. */
export async function firstOf(
  view: View,
  signal?: AbortSignal,
): Promise<{ first: Term | undefined; total: number }> {
  const response = await request(`/terms?${listQuery(view, 1, 0)}`, { signal: signal ?? null });
  const [first] = (await response.json()) as Term[];
  return { first, total: Number(response.headers.get('x-total-count') ?? 0) };
}

/** The name that sorts just before the alphabetical place `from`, if any. */
export async function lastBefore(view: View, signal?: AbortSignal): Promise<Term | undefined> {
  const query = new URLSearchParams({ sort: '-term', from: view.from, limit: '1' });
  if (view.category) query.set('category', view.category);
  const response = await request(`/terms?${query}`, { signal: signal ?? null });
  return ((await response.json()) as Term[])[0];
}

/**
 * The page before the alphabetical place `from`: the terms just before it, in order. Used to
 * step back from a place an older address names (`?from=schema`).
 */
export async function pageBefore(view: View): Promise<Term[]> {
  const query = new URLSearchParams({ sort: '-term', from: view.from, limit: String(PAGE_SIZE) });
  if (view.category) query.set('category', view.category);
  const response = await request(`/terms?${query}`);
  return ((await response.json()) as Term[]).reverse();
}

/** Every term of a view, page by page (never unpaged), for a download. */
export async function* everyTerm(view: View, onProgress: (done: number) => void) {
  const step = 1000;
  for (let offset = 0; ; offset += step) {
    const response = await request(`/terms?${listQuery({ ...view, offset: 0 }, step, offset)}`);
    const terms = (await response.json()) as Term[];
    if (terms.length > 0) yield terms;
    onProgress(offset + terms.length);
    if (terms.length < step) return;
  }
}

/** A term and its ETag, or null when no term has that id. */
export async function getTerm(id: number): Promise<{ term: Term; etag: string } | null> {
  try {
    const response = await request(`/terms/${id}`);
    return { term: (await response.json()) as Term, etag: response.headers.get('etag') ?? '' };
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

/** A page of a term's history, newest first; `older` is the cursor of the next page, if any. */
export interface HistoryPage {
  entries: HistoryEntry[];
  total: number;
  older: number | undefined;
  /** The entry just older than the page's last one, to show what that one changed. */
  previous: HistoryEntry | undefined;
}

/** How many entries of a history the page shows at a time. */
const HISTORY_STEP = 20;

/**
 * A page of the id's history, entries older than `before` when given; null: no such id. One
 * entry more than shown is asked for, so the last one shown can be compared with the one before.
 */
export async function history(id: number, before?: number): Promise<HistoryPage | null> {
  const cursor = before === undefined ? '' : `&before=${before}`;
  try {
    const response = await request(`/terms/${id}/history?limit=${HISTORY_STEP + 1}${cursor}`);
    const fetched = (await response.json()) as HistoryEntry[];
    const entries = fetched.slice(0, HISTORY_STEP);
    const total = Number(response.headers.get('x-total-count') ?? fetched.length);
    const last = entries.at(-1);
    const more = fetched.length > HISTORY_STEP;
    return {
      entries,
      total,
      older: last && more ? last.revision : undefined,
      previous: fetched[HISTORY_STEP],
    };
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

/** Up to `limit` terms found by `q` (ranked), for a type-ahead. */
export async function findTerms(q: string, limit: number, signal?: AbortSignal): Promise<Term[]> {
  const query = new URLSearchParams({ q, limit: String(limit) });
  const response = await request(`/terms?${query}`, { signal: signal ?? null });
  return (await response.json()) as Term[];
}

/** The terms whose see-also holds `id`, A to Z, up to `limit`; `total` counts them all. */
export async function linksTo(id: number, limit: number): Promise<Page> {
  const query = new URLSearchParams({ links_to: String(id), sort: 'term', limit: String(limit) });
  const response = await request(`/terms?${query}`);
  return {
    terms: (await response.json()) as Term[],
    total: Number(response.headers.get('x-total-count') ?? 0),
  };
}

/** The highest id plus one: free, whatever else changes meanwhile is refused by `create`. */
export async function freeId(): Promise<number> {
  const response = await request('/terms?sort=-id&limit=1');
  const [highest] = (await response.json()) as Term[];
  return highest && highest.id < Number.MAX_SAFE_INTEGER ? highest.id + 1 : 1;
}

/**
 * Creates a term only if its id is free, through the bulk endpoint, which refuses an id that
 * is taken in the same transaction (POST /terms would store a duplicate).
 */
export async function create(term: unknown): Promise<{ created: true } | { detail: string }> {
  const response = await request('/terms/bulk', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify([term]),
  });
  const [result] = (await response.json()) as BulkItemResult[];
  return result?.status === 'created' ? { created: true } : { detail: result?.detail ?? '' };
}

const json = (etag: string, body?: unknown): RequestInit => ({
  headers: {
    'if-match': etag,
    ...(body === undefined ? {} : { 'content-type': 'application/json' }),
  },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
});

/** Replaces the term if it is still as read (`etag`); the stored term and its new ETag. */
export async function replace(
  term: unknown,
  id: number,
  etag: string,
): Promise<{ term: Term; etag: string }> {
  const response = await request(`/terms/${id}`, { method: 'PUT', ...json(etag, term) });
  return { term: (await response.json()) as Term, etag: response.headers.get('etag') ?? '' };
}

export async function remove(id: number, etag: string): Promise<void> {
  await request(`/terms/${id}`, { method: 'DELETE', ...json(etag) });
}

/**
 * Brings back a revision, only if the term is still as shown (`etag`); a deleted term has no
 * ETag (it would match none), so bringing one back sends none.
 */
export async function restore(
  id: number,
  revision: number,
  etag?: string,
): Promise<{ term: Term; notes: string[] }> {
  const response = await request(`/terms/${id}/restore`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(etag ? { 'if-match': etag } : {}) },
    body: JSON.stringify({ revision }),
  });
  return { term: (await response.json()) as Term, notes: warnings(response) };
}

/**
 * What a write was accepted with but should be told of: the texts of its `Warning: 299 - "..."`
 * headers (one per warning; fetch joins them with commas, which the texts may hold too), in
 * the page's words where the page knows them.
 */
function warnings(response: Response): string[] {
  const header = response.headers.get('warning') ?? '';
  return [...header.matchAll(/299 - "((?:[^"\\]|\\.)*)"/g)].map(([, text = '']) => {
    const missing = /^see_also: no term has id (-?\d+)\.$/.exec(text)?.[1];
    if (missing !== undefined) return `Its see-also link to ID ${missing} leads to no term.`;
    const same = /^term: term (-?\d+) has the same name\.$/.exec(text)?.[1];
    if (same !== undefined) return `Term ${same} has the same name.`;
    return text;
  });
}

/** Sends one batch of an import; the results' `index` is the item's position in `items`. */
export async function importBatch(items: unknown[]): Promise<BulkItemResult[]> {
  const response = await request('/terms/bulk', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(items),
  });
  return (await response.json()) as BulkItemResult[];
}

/** The server's 10,000-item limit, kept well below so each request stays small. */
export const IMPORT_BATCH = 1000;

/** Whether this page may change the glossary now: what the note near the edit controls says. */
export type WriteAccess = 'open' | 'token-needed' | 'read-only' | 'with-token';

/**
 * Asks the service with a dry run of an import of one empty item, which stores nothing: a
 * glossary open to writes judges the item (and refuses it), one that needs a token answers
 * 401 first (403 for a token that may only read).
 */
export async function writeAccess(): Promise<WriteAccess> {
  try {
    await request('/terms/bulk?dry_run=true', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '[{}]',
    });
    return token.get() === null ? 'open' : 'with-token';
  } catch (error) {
    if (error instanceof TokenNeeded) return error.status === 403 ? 'read-only' : 'token-needed';
    throw error;
  }
}
