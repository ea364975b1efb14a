import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { NoSuchRevision, PreconditionFailed, TermNotFound } from '../glossary/edit-terms.ts';
import { FromNeedsNameOrder } from '../glossary/list-terms.ts';
import { NameConflictError } from '../glossary/other-names.ts';
import { StoreUnavailableError } from '../store/errors.ts';
import type { ValidationFault } from './wire.ts';

/**
 * Every error the service answers with, in one place. Validation failures are 422 with a list
 * of faults (validation.ts); everything else is `{"detail": "<sentence>"}`, from the table
 * below. A 5xx never carries internals: the cause goes to the log.
 */

/** How an error is answered: its status and its sentence, `{name}` standing for a value. */
interface ErrorEntry {
  status: number;
  message: string;
}

/**
 * Every `{"detail"}` error the service answers, by a stable code that names it in the log and
 * in docs/api.md's error list (test/http/errors-docs.test.ts holds the two together). The
 * client sees the status and the sentence only: the code is in no response.
 */
export const ERRORS = {
  NOT_HTTP: { status: 400, message: 'Bad Request' },
  BAD_URL: {
    status: 400,
    message: 'The URL is malformed (it holds an invalid percent-encoding).',
  },
  CONTENT_LENGTH_MISMATCH: {
    status: 400,
    message: 'The Content-Length header does not match the body.',
  },
  TWO_AUTHORIZATIONS: {
    status: 400,
    message: 'The request has more than one Authorization header; send one.',
  },
  EMPTY_BATCH: { status: 400, message: 'Request body must contain at least one term.' },
  AUTHENTICATION_REQUIRED: { status: 401, message: 'Authentication required.' },
  INVALID_TOKEN: { status: 401, message: 'Invalid token.' },
  READ_ONLY_TOKEN: { status: 403, message: 'This token may only read.' },
  TERM_NOT_FOUND: { status: 404, message: 'Term not found' },
  ROUTE_NOT_FOUND: { status: 404, message: 'Not Found' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'Method Not Allowed' },
  REQUEST_TIMEOUT: { status: 408, message: 'Request Timeout' },
  PRECONDITION_FAILED: { status: 412, message: 'Term has changed since it was read.' },
  BODY_TOO_LARGE: {
    status: 413,
    message: 'Request body is larger than the limit of {limit} bytes.',
  },
  BATCH_TOO_LARGE: { status: 413, message: 'A bulk request may hold at most {limit} terms.' },
  TOO_MANY_VALUES: {
    status: 413,
    message: 'Request body holds more than {limit} JSON values; no request needs that many.',
  },
  URL_TOO_LONG: { status: 414, message: 'The URL is too long.' },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    message: "Unsupported media type '{contentType}': send the body as application/json.",
  },
  CONTENT_TYPE_MISSING: {
    status: 415,
    message: 'A request body needs the Content-Type application/json.',
  },
  NOT_A_MERGE_PATCH: {
    status: 415,
    message:
      "A PATCH body is a JSON merge patch: send it as application/merge-patch+json or application/json (not '{contentType}').",
  },
  MERGE_PATCH_TYPE_MISSING: {
    status: 415,
    message:
      'A PATCH body is a JSON merge patch: send it as application/merge-patch+json or application/json.',
  },
  UNSUPPORTED_ENCODING: {
    status: 415,
    message: "Unsupported Content-Encoding '{encoding}': send the body uncompressed.",
  },
  UNKNOWN_HOST: {
    status: 421,
    message: "This service does not answer for the host '{host}' (ALLOWED_HOSTS).",
  },
  TOO_MANY_REQUESTS: {
    status: 429,
    message: 'Too many requests: at most {max} per {seconds} seconds from one client.',
  },
  TOO_MANY_FAILED_AUTHENTICATIONS: {
    status: 429,
    message:
      'Too many failed authentications: at most {max} per {seconds} seconds from one client.',
  },
  HEADERS_TOO_LARGE: { status: 431, message: 'Request Header Fields Too Large' },
  INTERNAL: { status: 500, message: 'Internal Server Error' },
  STORAGE_UNAVAILABLE: {
    status: 503,
    message: 'The glossary storage is unavailable; try again later.',
  },
  BODIES_OVER_BUDGET: {
    status: 503,
    message:
      'The server is receiving too many request bodies at once; send this one again shortly.',
  },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorCode = keyof typeof ERRORS;

/** A request the service refuses, with the status and sentence the client sees. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
    /** The table's code, or Fastify's own for a client error it raised (see `fromFramework`). */
    readonly code: string = 'HTTP_ERROR',
  ) {
    super(detail);
    this.name = 'HttpError';
  }
}

export class RequestValidationError extends Error {
  readonly statusCode = 422;
  constructor(readonly faults: ValidationFault[]) {
    super('request validation failed');
    this.name = 'RequestValidationError';
  }
}

/** The fault `type` of a name another term has (the rule across the glossary). */
export const NAME_CONFLICT = 'value_error.name.conflict';

/**
 * A write refused by the rule across the glossary, as the fault of the name at fault:
 * `["body","avoid",1]` (`["body","term"]` for the name), the contract's sentence
 * ("'web hook' is a name to avoid for term 42."), and that name as the input.
 */
export function nameConflictFault(error: NameConflictError): ValidationFault {
  return {
    loc: error.kind === 'term' ? ['body', 'term'] : ['body', error.kind, error.index],
    msg: error.message,
    type: NAME_CONFLICT,
    input: error.text,
  };
}

/** The error the table names `code`, its `{name}`s filled in from `values`. */
function answer(
  code: ErrorCode,
  values: Record<string, string | number> = {},
  headers: Record<string, string> = {},
): HttpError {
  const { status, message } = ERRORS[code];
  const detail = message.includes('{')
    ? message.replace(/\{(\w+)\}/g, (_, name: string) => String(values[name]))
    : message;
  return new HttpError(status, detail, headers, code);
}

export const RETRY_AFTER_SECONDS = 5;
/** RFC 6750: the scheme a client must use, with the realm it protects. */
const BEARER = 'Bearer realm="glossary"';
/** A value the client sent, quoted in a sentence: never more of it than this. */
const quoted = (value: string) => value.slice(0, 100);
const retryAfter = (ms: number) => ({
  'retry-after': String(Math.max(1, Math.ceil(ms / 1000))),
});

/** The errors of the table, each made with the values its sentence and headers need. */
export const errors = {
  termNotFound: () => answer('TERM_NOT_FOUND'),
  routeNotFound: () => answer('ROUTE_NOT_FOUND'),
  methodNotAllowed: (allow: string) => answer('METHOD_NOT_ALLOWED', {}, { allow }),
  urlTooLong: () => answer('URL_TOO_LONG'),
  emptyBatch: () => answer('EMPTY_BATCH'),
  contentLengthMismatch: () => answer('CONTENT_LENGTH_MISMATCH'),
  badUrl: () => answer('BAD_URL'),
  // Answered by `clientErrorHandler`, before a request exists: the status's own reason phrase.
  notHttp: () => answer('NOT_HTTP'),
  requestTimeout: () => answer('REQUEST_TIMEOUT'),
  headersTooLarge: () => answer('HEADERS_TOO_LARGE'),
  bodyTooLarge: (limit: number) => answer('BODY_TOO_LARGE', { limit }),
  batchTooLarge: (limit: number) => answer('BATCH_TOO_LARGE', { limit }),
  tooManyValues: (limit: number) => answer('TOO_MANY_VALUES', { limit }),
  unsupportedEncoding: (encoding: string) =>
    answer(
      'UNSUPPORTED_ENCODING',
      { encoding: quoted(encoding) },
      { 'accept-encoding': 'identity' },
    ),
  unsupportedMediaType: (contentType: string | undefined) =>
    contentType
      ? answer('UNSUPPORTED_MEDIA_TYPE', { contentType: quoted(contentType) })
      : answer('CONTENT_TYPE_MISSING'),
  storageUnavailable: () =>
    answer('STORAGE_UNAVAILABLE', {}, { 'retry-after': String(RETRY_AFTER_SECONDS) }),
  unknownHost: (host: string) => answer('UNKNOWN_HOST', { host: quoted(host) }),
  bodiesOverBudget: () => answer('BODIES_OVER_BUDGET', {}, { 'retry-after': '1' }),
  tooManyRequests: (max: number, windowMs: number, retryAfterMs: number) =>
    answer('TOO_MANY_REQUESTS', { max, seconds: windowMs / 1000 }, retryAfter(retryAfterMs)),
  tooManyFailedAuthentications: (limit: { max: number; windowMs: number }, retryAfterMs: number) =>
    answer(
      'TOO_MANY_FAILED_AUTHENTICATIONS',
      { max: limit.max, seconds: limit.windowMs / 1000 },
      retryAfter(retryAfterMs),
    ),
  internal: () => answer('INTERNAL'),
  preconditionFailed: () => answer('PRECONDITION_FAILED'),
  authenticationRequired: () =>
    answer('AUTHENTICATION_REQUIRED', {}, { 'www-authenticate': BEARER }),
  invalidToken: () =>
    answer('INVALID_TOKEN', {}, { 'www-authenticate': `${BEARER}, error="invalid_token"` }),
  readOnlyToken: () =>
    answer('READ_ONLY_TOKEN', {}, { 'www-authenticate': `${BEARER}, error="insufficient_scope"` }),
  twoAuthorizations: () => answer('TWO_AUTHORIZATIONS'),
  notAMergePatch: (contentType: string | undefined) =>
    answer(
      contentType ? 'NOT_A_MERGE_PATCH' : 'MERGE_PATCH_TYPE_MISSING',
      contentType ? { contentType: quoted(contentType) } : {},
      { 'accept-patch': 'application/merge-patch+json, application/json' },
    ),
} as const;

/** Fastify's own errors that are the client's doing, mapped to the contract's shape. */
function fromFramework(error: FastifyError, request: FastifyRequest): HttpError | null {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.bodyTooLarge(request.routeOptions.bodyLimit ?? 0);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
    case 'FST_ERR_CTP_EMPTY_TYPE':
      return request.method === 'PATCH'
        ? errors.notAMergePatch(request.headers['content-type'])
        : errors.unsupportedMediaType(request.headers['content-type']);
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return errors.contentLengthMismatch();
    default:
      if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
        return new HttpError(error.statusCode, error.message, {}, error.code);
      }
      return null;
  }
}

/** Errors the router raises before any route runs, in the same `{"detail"}` shape. */
export function frameworkErrorHandler(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  reply.header('x-request-id', request.id);
  switch (error.code) {
    case 'FST_ERR_BAD_URL':
      return sendError(errors.badUrl(), reply);
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return sendError(errors.urlTooLong(), reply);
    default:
      return errorHandler(error, request, reply);
  }
}

export function sendError(error: HttpError, reply: FastifyReply): FastifyReply {
  return reply.code(error.statusCode).headers(error.headers).send({ detail: error.detail });
}

export function errorHandler(
  error: FastifyError | Error,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  if (error instanceof RequestValidationError) {
    return reply.code(422).send({ detail: error.faults });
  }
  if (error instanceof HttpError) return sendError(error, reply);
  if (error instanceof TermNotFound) return sendError(errors.termNotFound(), reply);
  if (error instanceof FromNeedsNameOrder) {
    return reply.code(422).send({
      detail: [
        { loc: ['query', 'from'], msg: error.message, type: 'value_error', input: error.from },
      ],
    });
  }
  if (error instanceof NameConflictError) {
    return reply.code(422).send({ detail: [nameConflictFault(error)] });
  }
  if (error instanceof PreconditionFailed) return sendError(errors.preconditionFailed(), reply);
  if (error instanceof NoSuchRevision) {
    return reply.code(422).send({
      detail: [
        {
          loc: ['body', 'revision'],
          msg: `no revision ${error.revision} in the history of term ${error.id}`,
          type: 'value_error',
          input: error.revision,
        },
      ],
    });
  }
  if (error instanceof StoreUnavailableError) {
    request.log.warn({ err: error }, 'storage unavailable');
    return sendError(errors.storageUnavailable(), reply);
  }
  const clientError = fromFramework(error as FastifyError, request);
  if (clientError) return sendError(clientError, reply);
  request.log.error({ err: error }, 'unhandled error');
  return sendError(errors.internal(), reply);
}

/**
 * Requests Node's HTTP parser refuses before Fastify sees them (not HTTP, a header section
 * over the limit, a request too slow to arrive) answer in the contract's shape too, then the
 * connection closes: after a broken request nothing on it can be trusted.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { statusCode, detail } =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? errors.requestTimeout()
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? errors.headersTooLarge()
        : errors.notHttp();
  const body = JSON.stringify({ detail });
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(
    `HTTP/1.1 ${statusCode} ${http.STATUS_CODES[statusCode]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
