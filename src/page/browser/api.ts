/** The public HTTP API, as the page uses it (same origin, so no base address). */

export const CATEGORIES = ['frontend', 'backend', 'devops', 'docs-as-code'] as const;

export interface Term {
  id: number;
  term: string;
  definition: string;
  category: string;
  see_also: number[];
}

export interface ValidationFault {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export interface BulkResult {
  index: number;
  status: 'created' | 'error';
  id?: number;
  detail?: string;
}

/** The server said no with a sentence (`{"detail": "..."}`) or failed in another way. */
export class ApiError extends Error {}

/** The server's 10,000-item limit, kept well below so each request stays small. */
export const IMPORT_BATCH = 1000;

async function request(path: string, init: RequestInit = {}): Promise<Response> {
  try {
    return await fetch(path, { ...init, headers: { accept: 'application/json', ...init.headers } });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new ApiError('The glossary service cannot be reached.');
  }
}

async function failure(response: Response): Promise<ApiError> {
  const body = (await response.json().catch(() => null)) as { detail?: unknown } | null;
  const detail = typeof body?.detail === 'string' ? body.detail : response.statusText;
  return new ApiError(`The service answered ${response.status}: ${detail}`);
}

export async function listTerms(
  filter: { category: string; search: string },
  signal?: AbortSignal,
): Promise<Term[]> {
  const query = new URLSearchParams();
  if (filter.category) query.set('category', filter.category);
  if (filter.search) query.set('search', filter.search);
  const suffix = query.size > 0 ? `?${query}` : '';
  const response = await request(`/terms${suffix}`, { signal: signal ?? null });
  if (!response.ok) throw await failure(response);
  return (await response.json()) as Term[];
}

/** A term, or null when no term has that id. */
export async function getTerm(id: number): Promise<Term | null> {
  const response = await request(`/terms/${id}`);
  if (response.status === 404) return null;
  if (!response.ok) throw await failure(response);
  return (await response.json()) as Term;
}

export type CreateResult = { ok: true; term: Term } | { ok: false; faults: ValidationFault[] };

export async function createTerm(body: Record<string, unknown>): Promise<CreateResult> {
  const response = await request('/terms', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status === 422) {
    const { detail } = (await response.json()) as { detail: ValidationFault[] };
    return { ok: false, faults: detail };
  }
  if (!response.ok) throw await failure(response);
  return { ok: true, term: (await response.json()) as Term };
}

/** Sends one batch; the results' `index` is the item's position within `items`. */
export async function importBatch(items: unknown[]): Promise<BulkResult[]> {
  const response = await request('/terms/bulk', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(items),
  });
  if (response.status !== 207) throw await failure(response);
  return (await response.json()) as BulkResult[];
}
