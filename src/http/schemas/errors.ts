import { errors, type HttpError, RETRY_AFTER_SECONDS } from '../errors.ts';
import { MessageBody } from '../wire.ts';

/**
 * A `{"detail"}` answer: what it means here, and the sentences it can carry, each named as the
 * errors table names it and made by it, so a changed sentence changes the document too.
 * `x-response-description` (read by @fastify/swagger) describes the response and leaves the
 * Message schema its own description; `x-examples` become the media type's named examples.
 */
export function message(description: string, answers: Record<string, HttpError>) {
  return {
    ...MessageBody,
    'x-response-description': description,
    'x-examples': Object.fromEntries(
      Object.entries(answers).map(([name, { detail }]) => [name, { value: { detail } }]),
    ),
  };
}

const retryAfter = {
  'retry-after': {
    type: 'integer',
    required: true,
    description: 'Seconds to wait before trying again.',
  },
};

/** Every route that touches storage may answer 503 while the storage cannot serve it. */
export const unavailable = {
  503: {
    ...message(
      `The storage cannot serve the request now (disk full, read-only, unreachable). A write answered 503 is not acknowledged; retry after \`Retry-After\` seconds (${RETRY_AFTER_SECONDS}).`,
      { storageUnavailable: errors.storageUnavailable() },
    ),
    headers: retryAfter,
  },
};

/** A request with a body: 503 also while the bodies being received fill BODY_MEMORY_LIMIT. */
export const unavailableForBodies = {
  503: {
    ...message(
      `The storage cannot serve the request now (\`Retry-After: ${RETRY_AFTER_SECONDS}\`), or the bodies the server is receiving fill BODY_MEMORY_LIMIT (\`Retry-After: ${errors.bodiesOverBudget().headers['retry-after']}\`). Nothing was stored; send it again after \`Retry-After\` seconds.`,
      {
        storageUnavailable: errors.storageUnavailable(),
        bodiesOverBudget: errors.bodiesOverBudget(),
      },
    ),
    headers: retryAfter,
  },
};

/** A per-client rate limit (RATE_LIMIT), or too many failed authentications (AUTH_FAILURE_LIMIT). */
export const rateLimited = {
  429: {
    ...message(
      'Too many requests from this client (only when RATE_LIMIT is set), or too many of its tokens refused (AUTH_FAILURE_LIMIT).',
      {
        tooManyRequests: errors.tooManyRequests(100, 60_000, 30_000),
        tooManyFailedAuthentications: errors.tooManyFailedAuthentications(
          { max: 10, windowMs: 60_000 },
          30_000,
        ),
      },
    ),
    headers: retryAfter,
  },
};

const wwwAuthenticate = {
  'www-authenticate': {
    type: 'string',
    required: true,
    description: 'RFC 6750: `Bearer realm="glossary"`, with `error` when a token was refused.',
  },
};

/** Once a token exists: writes need a write token, reads one too with READ_ACCESS=token. */
export const accessErrors = {
  400: message('The request has more than one Authorization header.', {
    twoAuthorizations: errors.twoAuthorizations(),
  }),
  401: {
    ...message('A token is needed, or the one sent is unknown or revoked.', {
      authenticationRequired: errors.authenticationRequired(),
      invalidToken: errors.invalidToken(),
    }),
    headers: wwwAuthenticate,
  },
  403: {
    ...message('The token may only read.', { readOnlyToken: errors.readOnlyToken() }),
    headers: wwwAuthenticate,
  },
};

/**
 * Answers any request can get, listed on every operation: Node's parser refuses a header
 * section over 16 KiB before a route is known, and an unexpected failure is a 500 whose cause
 * goes to the log.
 */
export const anyRequestErrors = {
  431: message('The header section is larger than 16 KiB; the connection is closed.', {
    headersTooLarge: errors.headersTooLarge(),
  }),
  500: message('Something unexpected failed; the cause is in the log, never in the answer.', {
    internal: errors.internal(),
  }),
};

/** Every operation but the probes, which answer any host (see allowed-hosts.ts). */
export const misdirected = {
  421: message(
    'The `Host` header names a host outside ALLOWED_HOSTS (only when that is set): answered before anything else runs.',
    { unknownHost: errors.unknownHost('attacker.example') },
  ),
};

/** An operation that reads a body: REQUEST_TIMEOUT_MS bounds how long it may take to arrive. */
export const slowBody = {
  408: message(
    'The whole request, body included, did not arrive within REQUEST_TIMEOUT_MS; the connection is closed.',
    { requestTimeout: errors.requestTimeout() },
  ),
};

/** What a request with a JSON body may also be answered (after the route's own answers). */
export function bodyErrors(bodyLimit: number) {
  return {
    ...slowBody,
    ...unavailableForBodies,
    413: message(
      'The body is larger than BODY_LIMIT, or holds more JSON values than any valid request needs; it is not read further.',
      { bodyTooLarge: errors.bodyTooLarge(bodyLimit) },
    ),
    415: {
      ...message('The body is not sent as application/json, or is sent compressed.', {
        unsupportedMediaType: errors.unsupportedMediaType('text/plain'),
        unsupportedEncoding: errors.unsupportedEncoding('gzip'),
      }),
      headers: {
        'accept-encoding': {
          type: 'string',
          description: 'For a compressed body: `identity`, send it uncompressed.',
        },
      },
    },
  };
}
