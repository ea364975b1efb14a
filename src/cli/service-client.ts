import { JSONParser } from '@streamparser/json';
import { CliError } from './cli-error.ts';

/** The public HTTP API, as the command-line tool uses it; nothing else of the service. */

import { MAX_HISTORY_PAGE, type Term } from '../glossary/term.ts';
import type { BulkItemResult, HistoryEntry, ValidationFault } from '../http/wire.ts';

export type { Term };

export const DEFAULT_URL = 'http://127.0.0.1:8000';

/** A bad argument's exit status; a token that cannot be sent is one, whatever the command. */
const USAGE_ERROR = 2;

/** The service answered a batch with a status other than 207. */
export class BatchRefused extends CliError {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** A term as GET /terms/{id} answered it, with its ETag (for If-Match). */
export interface FetchedTerm {
  term: Term;
  etag: string;
}

export class ServiceClient {
  private readonly base: string;

  /** `token`: sent as `Authorization: Bearer` on every request, when given. */
  constructor(
    readonly url: string,
    private readonly token?: string,
  ) {
    this.base = url.endsWith('/') ? url : `${url}/`;
    // fetch refuses such a header, and its error would read as an unreachable service with the
    // token itself in it (in a CI log): a line break inside (a token pasted over two lines),
    // NUL, a character beyond Latin-1. White space at either end is dropped by fetch, harmlessly.
    if (token?.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '').match(/[\0\r\n]|[^\0-\xff]/u)) {
      throw new CliError(
        'the token given with --token or GLOSSARY_TOKEN holds a line break or another character an HTTP header cannot carry; check how it was copied',
        USAGE_ERROR,
      );
    }
  }

  /** Every term, in the service's order (creation order). */
  async listTerms(): Promise<Term[]> {
    const response = await this.send('terms', { method: 'GET' });
    if (response.status !== 200) throw await this.refusal(response, { collection: true });
    const body = await this.json(response);
    if (!Array.isArray(body)) throw new CliError(`${this.url} did not answer with a list of terms`);
    return body as Term[];
  }

  /**
   * Every term, in the service's order, as the answer arrives, a batch for each chunk read:
   * only those terms are held, so the glossary's size does not bound what a client can export.
   * `filters` (`category`, `q`) are sent as GET /terms takes them.
   */
  async *streamTerms(filters: Record<string, string | undefined> = {}): AsyncGenerator<Term[]> {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(filters))
      if (value !== undefined) query.set(name, value);
    const search = query.size > 0 ? `?${query}` : '';
    const response = await this.send(`terms${search}`, { method: 'GET' });
    if (response.status !== 200) throw await this.refusal(response, { collection: true });
    const notAList = () =>
      new CliError(
        `${this.url} did not answer with a list of terms: is this a glossary service? Check --url or GLOSSARY_URL`,
      );
    const parser = new JSONParser({ paths: ['$.*'], keepStack: false });
    const arrived: Term[] = [];
    let started = false;
    // Another JSON API's list (of anything but terms) must not export as a glossary.
    let foreign = false;
    parser.onValue = ({ value }) => {
      if (isTermLike(value)) arrived.push(value);
      else foreign = true;
    };
    for await (const chunk of response.body ?? []) {
      if (!started) {
        const text = Buffer.from(chunk).toString('utf8').trimStart();
        if (text === '') continue;
        if (!text.startsWith('[')) throw notAList();
        started = true;
      }
      try {
        parser.write(chunk);
      } catch {
        throw new CliError(
          `${this.url} did not answer with JSON: is this a glossary service? Check --url or GLOSSARY_URL`,
        );
      }
      if (foreign) throw notAList();
      if (arrived.length > 0) yield arrived.splice(0);
    }
    if (!started || !parser.isEnded) throw notAList();
  }

  /** The term with this id and its ETag, or undefined (404). */
  async getTerm(id: number): Promise<FetchedTerm | undefined> {
    const response = await this.send(`terms/${id}`, { method: 'GET' });
    if (response.status === 404) return undefined;
    if (response.status !== 200) throw await this.refusal(response);
    return { term: (await this.json(response)) as Term, etag: response.headers.get('etag') ?? '' };
  }

  /**
   * PUT /terms/{id} if the term still has `etag`. Resolves the answer's warnings once
   * replaced, 'changed' when it changed since it was read (412), or the faults of a 422 (such
   * as a name another term holds: `avoid.0: 'web hook' is the name of term 42.`), in the words
   * of a bulk item's `detail`; rejects with the service's reason otherwise.
   */
  async replaceTerm(
    term: Term,
    etag: string,
  ): Promise<{ warnings: string[] } | 'changed' | { refused: string }> {
    const response = await this.send(`terms/${term.id}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'if-match': etag },
      body: JSON.stringify(term),
    });
    if (response.status === 412) return 'changed';
    if (response.status === 422) {
      const body = (await this.json(response)) as { detail?: ValidationFault[] };
      if (Array.isArray(body.detail)) return { refused: describe(body.detail) };
      throw new CliError(`${this.url} answered 422 without faults`);
    }
    if (response.status !== 200) throw await this.refusal(response);
    await drain(response);
    return { warnings: warningsOf(response) };
  }

  /**
   * One page of the id's history, newest first: the entries older than revision `before` when
   * it is given (the cursor of the history's `next` link). Undefined for an id that never existed.
   */
  async historyPage(id: number, before?: number): Promise<HistoryEntry[] | undefined> {
    const query = `limit=${MAX_HISTORY_PAGE}${before === undefined ? '' : `&before=${before}`}`;
    const response = await this.send(`terms/${id}/history?${query}`, { method: 'GET' });
    if (response.status === 404) {
      await drain(response);
      return undefined;
    }
    if (response.status !== 200) throw await this.refusal(response);
    const body = await this.json(response);
    if (!Array.isArray(body)) throw new CliError(`${this.url} did not answer with a history`);
    return body as HistoryEntry[];
  }

  /**
   * DELETE /terms/{id} if the term still has `etag`: the answer's warnings once deleted,
   * 'changed' when it changed since it was read (412), 'gone' when it is deleted already (404).
   */
  async deleteTerm(id: number, etag: string): Promise<{ warnings: string[] } | 'changed' | 'gone'> {
    const response = await this.send(`terms/${id}`, {
      method: 'DELETE',
      headers: { 'if-match': etag },
    });
    if (response.status !== 204 && response.status !== 412 && response.status !== 404)
      throw await this.refusal(response);
    // A connection is reused only once its answer was read to the end.
    await drain(response);
    if (response.status === 412) return 'changed';
    return response.status === 404 ? 'gone' : { warnings: warningsOf(response) };
  }

  /** `dryRun`: the service judges the batch and stores nothing. */
  async importBatch(items: unknown[], { dryRun = false } = {}): Promise<BulkItemResult[]> {
    const response = await this.send(dryRun ? 'terms/bulk?dry_run=true' : 'terms/bulk', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(items),
    });
    if (response.status !== 207) {
      const refusal = await this.refusal(response, { collection: true });
      throw new BatchRefused(refusal.message, response.status);
    }
    const results = await this.json(response);
    if (!Array.isArray(results) || results.length !== items.length) {
      throw new CliError(`${this.url} did not answer a bulk import with one result per term`);
    }
    return results as BulkItemResult[];
  }

  private async send(path: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(new URL(path, this.base), {
        ...init,
        headers: {
          accept: 'application/json',
          ...(this.token ? { authorization: `Bearer ${this.token}` } : {}),
          ...init.headers,
        },
      });
    } catch (error) {
      const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause;
      const reason = cause?.code ?? cause?.message ?? (error as Error).message;
      throw new CliError(`cannot reach the glossary service at ${this.url} (${reason})`);
    }
  }

  private async json(response: Response): Promise<unknown> {
    try {
      return await response.json();
    } catch {
      throw new CliError(
        `${this.url} did not answer with JSON: is this a glossary service? Check --url or GLOSSARY_URL`,
      );
    }
  }

  /**
   * Why the service said no, in one line. `collection`: the request went to a path every
   * glossary service answers (`/terms`, `/terms/bulk`), so a 404 there means `--url` names
   * something else (another web server, or the glossary under another path prefix); so does
   * an answer that is not JSON, such as an HTML page. A 401 says what to do: give a token when
   * none was sent, or that the one sent was refused (wrong or revoked).
   */
  private async refusal(response: Response, { collection = false } = {}): Promise<CliError> {
    const text = await response.text().catch(() => '');
    let detail: unknown;
    let json = true;
    try {
      detail = (JSON.parse(text) as { detail?: unknown }).detail;
    } catch {
      json = false;
    }
    // A success other than the one expected (200 to a bulk import, which answers 207) is
    // another server's too.
    if (!json || (collection && (response.status === 404 || response.status < 300))) {
      const what = json ? '' : ` with ${describeBody(response)}`;
      return new CliError(
        `${this.url} answered ${response.status}${what}: is this a glossary service? Check --url or GLOSSARY_URL`,
      );
    }
    const sentence = typeof detail === 'string' ? `: ${detail}` : '';
    const hint =
      response.status === 401
        ? this.token
          ? ' (the token given with --token or GLOSSARY_TOKEN was refused: it is wrong or was revoked)'
          : ' (give a token with --token or GLOSSARY_TOKEN)'
        : response.status === 403
          ? ' (this needs a write token)'
          : '';
    // A 301 or 302 turns a POST into a GET (fetch follows it as browsers do): the import then
    // meets a 405 whose cause is the address, so the address it was sent to is named.
    const moved = response.redirected
      ? ` (redirected to ${response.url}: give the address it moved to as --url)`
      : '';
    return new CliError(
      `the service at ${this.url} answered ${response.status}${sentence}${hint}${moved}`,
    );
  }
}

/** An item of GET /terms as far as a client relies on it: an object with an id and a name. */
function isTermLike(value: unknown): value is Term {
  if (typeof value !== 'object' || value === null) return false;
  const { id, term } = value as { id?: unknown; term?: unknown };
  return typeof id === 'number' && typeof term === 'string';
}

/** What a non-JSON answer is, in a few words: `an HTML page`, `text/plain`, `an empty body`. */
function describeBody(response: Response): string {
  const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'an HTML page';
  return type ? type : 'a body that is not JSON';
}

/**
 * The texts of a write's `Warning: 299 - "text"` headers. Fetch joins repeated headers with
 * `, `, and a text may hold commas, so each is read as the quoted string it is.
 */
function warningsOf(response: Response): string[] {
  const joined = response.headers.get('warning') ?? '';
  return [...joined.matchAll(/\d{3} \S+ "((?:[^"\\]|\\.)*)"/g)].map((match) =>
    (match[1] ?? '').replace(/\\(.)/g, '$1'),
  );
}

async function drain(response: Response): Promise<void> {
  await response.arrayBuffer().catch(() => undefined);
}

/** Faults as a bulk item's `detail` words them: `field.index: message`, joined by `; `. */
function describe(faults: readonly ValidationFault[]): string {
  return faults
    .map((fault) => {
      const where = fault.loc.slice(1).join('.');
      return where ? `${where}: ${fault.msg}` : fault.msg;
    })
    .join('; ');
}
