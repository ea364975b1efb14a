import type { ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { ChangeFollowers } from '../../glossary/change-followers.ts';
import { type ChangeFeed, changeRecord } from '../../glossary/changes.ts';
import { followChanges, waitForChanges } from '../../glossary/follow-changes.ts';
import type { HistoryEntry } from '../../glossary/history.ts';
import { READ_SECURITY } from '../openapi-document.ts';
import {
  accessErrors,
  anyRequestErrors,
  misdirected,
  rateLimited,
  unavailable,
} from '../schemas/errors.ts';
import { sendStream } from '../term-json.ts';
import { CHANGE_PAGE_EXAMPLE, ChangePage, ValidationErrorBody } from '../wire.ts';

export interface ChangeRoutesOptions {
  store: ChangeFeed;
  followers: ChangeFollowers;
  /** How often an event stream gets a comment line. */
  keepAliveMs: number;
  /** The connection's idle timeout: a wait or a stream lengthens it. */
  idleTimeoutMs: number;
}

export const MAX_CHANGES_PAGE = 1000;
export const MAX_WAIT_SECONDS = 30;
/** An event stream whose client reads too slowly to keep this much unsent is cut off. */
const STREAM_BUFFER_LIMIT = 1024 * 1024;
/** When the service stops, how long a stream's client has to take its last bytes. */
const STOP_GRACE_MS = 1000;

const ChangesQuery = Type.Object({
  since: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description:
        'Only the changes with a revision above this (default 0: from the first): the `next` of the answer before.',
      examples: [12],
    }),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_CHANGES_PAGE,
      description: `Return at most this many changes (1-${MAX_CHANGES_PAGE}; 100 when absent).`,
    }),
  ),
  wait: Type.Optional(
    Type.Number({
      minimum: 0,
      maximum: MAX_WAIT_SECONDS,
      description: `When no change is above \`since\`, wait up to this many seconds (at most ${MAX_WAIT_SECONDS}) for one before answering, also for a change made through another worker or instance (a long poll).`,
    }),
  ),
});

const ChangesHeaders = Type.Object({
  'last-event-id': Type.Optional(
    Type.String({
      pattern: '^[0-9]{1,15}$',
      description:
        'Event stream only: resume after this revision (what `EventSource` sends when it reconnects); it wins over `since`.',
    }),
  ),
});

const EVENT_STREAM = 'text/event-stream';

export const changeRoutes: FastifyPluginAsyncTypebox<ChangeRoutesOptions> = async (
  app,
  { store, followers, keepAliveMs, idleTimeoutMs },
) => {
  app.get(
    '/changes',
    {
      config: { access: 'read' },
      schema: {
        summary: 'Follow the changes',
        operationId: 'listChanges',
        tags: ['changes'],
        description: `Every change of the glossary with a revision above \`since\`, oldest first: a follower that keeps asking with \`since\` set to \`next\` sees each change exactly once and never skips one, however many clients write through however many workers or instances. \`wait\` holds an empty answer until a change arrives (a long poll). With \`Accept: ${EVENT_STREAM}\` the same path is a stream of Server-Sent Events, one per change (\`id:\` the revision, \`event:\` the type, \`data:\` the change), kept open with a comment line now and then; \`Last-Event-ID\` resumes after that revision.`,
        querystring: ChangesQuery,
        headers: ChangesHeaders,
        security: READ_SECURITY,
        response: {
          200: {
            description: `The changes (\`application/json\`), or their event stream (\`${EVENT_STREAM}\`).`,
            content: {
              'application/json': { schema: ChangePage, example: CHANGE_PAGE_EXAMPLE },
              [EVENT_STREAM]: {
                schema: Type.String(),
                example:
                  'id: 12\nevent: term.updated\ndata: {"revision":12,"type":"term.updated","id":42,...}\n\n',
              },
            },
          },
          422: ValidationErrorBody,
          ...unavailable,
          ...rateLimited,
          ...accessErrors,
          ...misdirected,
          ...anyRequestErrors,
        },
      },
    },
    async (request, reply) => {
      const { since = 0, limit = 100, wait = 0 } = request.query;
      if (wantsEventStream(request)) {
        const lastEventId = request.headers['last-event-id'];
        const from = lastEventId === undefined ? since : Number(lastEventId);
        reply
          .type(`${EVENT_STREAM}; charset=utf-8`)
          .header('cache-control', 'no-cache')
          .header('x-accel-buffering', 'no');
        if (request.method === 'HEAD') return reply.send('');
        lengthenIdleTimeout(request, idleTimeoutMs + keepAliveMs);
        return sendStream(
          reply,
          eventStream(request, reply.raw, store, followers, from, keepAliveMs),
        );
      }
      if (wait > 0) lengthenIdleTimeout(request, idleTimeoutMs + wait * 1000);
      const closed = new AbortController();
      request.raw.once('close', () => closed.abort());
      const entries = await waitForChanges(store, followers, {
        since,
        limit,
        waitMs: wait * 1000,
        signal: closed.signal,
      });
      // A wait cut short by the service stopping: its connection closes with it.
      if (followers.closed) reply.header('connection', 'close');
      return { changes: entries.map(changeRecord), next: entries.at(-1)?.revision ?? since };
    },
  );
};

/**
 * A wait or a stream is quiet on purpose: its connection must outlive it before the idle
 * timeout counts (an injected request has no real socket to set).
 */
function lengthenIdleTimeout(request: FastifyRequest, ms: number): void {
  const socket = request.raw.socket as Partial<import('node:net').Socket> | null;
  socket?.setTimeout?.(ms);
}

/**
 * Whether `Accept` asks for the event stream: a media range of exactly `text/event-stream`
 * with a weight above 0 (RFC 9110 12.5.1; `q=0` means "not this").
 */
function wantsEventStream(request: FastifyRequest): boolean {
  const accept = request.headers.accept;
  if (accept === undefined) return false;
  return accept.split(',').some((range) => {
    const [type = '', ...parameters] = range.split(';').map((part) => part.trim().toLowerCase());
    if (type !== EVENT_STREAM) return false;
    const weight = parameters.find((parameter) => /^q\s*=/.test(parameter));
    return weight === undefined || Number(weight.replace(/^q\s*=\s*/, '')) > 0;
  });
}

function eventText(entry: HistoryEntry): string {
  const change = changeRecord(entry);
  return `id: ${change.revision}\nevent: ${change.type}\ndata: ${JSON.stringify(change)}\n\n`;
}

/**
 * The event stream of one client: its backlog, then each change as it comes, and a comment
 * line every `keepAliveMs`. Ends when the client goes, when it reads so slowly that a
 * megabyte waits unsent (it reconnects with `Last-Event-ID` and misses nothing), or when the
 * service stops.
 */
function eventStream(
  request: FastifyRequest,
  response: ServerResponse,
  store: ChangeFeed,
  followers: ChangeFollowers,
  from: number,
  keepAliveMs: number,
): PassThrough {
  const stream = new PassThrough();
  const stop = new AbortController();
  const keepAlive = setInterval(() => stream.write(': keep-alive\n\n'), keepAliveMs);
  const end = () => {
    if (stop.signal.aborted) return;
    stop.abort();
    clearInterval(keepAlive);
    // The service is stopping: once the stream's last bytes are out, so is its connection,
    // which would otherwise idle on until its keep-alive timeout held the shutdown up.
    const socket = response.socket;
    if (followers.closed) {
      response.once('finish', () => socket?.end());
      // A client that reads nothing never takes the last bytes, nor closes its side.
      setTimeout(() => socket?.destroy(), STOP_GRACE_MS).unref();
    }
    stream.end();
  };
  request.raw.once('close', end);
  stream.once('close', end);
  // An EventSource reconnects after a second when the stream ends.
  stream.write(': changes\nretry: 1000\n\n');
  followChanges(store, followers, {
    since: from,
    signal: stop.signal,
    onReadFailure(error) {
      request.log.warn({ err: error }, 'reading the change feed for a stream failed; trying again');
    },
    onEntries(entries) {
      let text = '';
      for (const entry of entries) text += eventText(entry);
      stream.write(text);
      // It takes nothing: its connection goes (ending the stream would wait on it forever).
      if (stream.writableLength > STREAM_BUFFER_LIMIT) {
        end();
        response.socket?.destroy();
      }
    },
  }).then(end, (error: unknown) => {
    request.log.warn({ err: error }, 'change stream ended by an error');
    end();
  });
  return stream;
}
