import http from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { NoSuchRevision, PreconditionFailed, TermNotFound } from '../glossary/edit-terms.ts';
import { FromNeedsNameOrder } from '../glossary/list-terms.ts';
import { StoreUnavailableError } from '../store/errors.ts';
import type { ValidationFault } from './wire.ts';

/**
 * Every error the service answers with, in one place. Validation failures are 422 with a list
 * of faults; everything else is `{"detail": "<sentence>"}`. A 5xx never carries internals: the
 * cause goes to the log.
 */

/** A request the service refuses, with the status and sentence the client sees. */
export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
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

export const RETRY_AFTER_SECONDS = 5;
/** RFC 6750: the scheme a client must use, with the realm it protects. */
const BEARER = 'Bearer realm="glossary"';

export const errors = {
  termNotFound: () => new HttpError(404, 'Term not found'),
  routeNotFound: () => new HttpError(404, 'Not Found'),
  methodNotAllowed: (allow: string) => new HttpError(405, 'Method Not Allowed', { allow }),
  urlTooLong: () => new HttpError(414, 'The URL is too long.'),
  emptyBatch: () => new HttpError(400, 'Request body must contain at least one term.'),
  contentLengthMismatch: () =>
    new HttpError(400, 'The Content-Length header does not match the body.'),
  badUrl: () => new HttpError(400, 'The URL is malformed (it holds an invalid percent-encoding).'),
  // Answered by `clientErrorHandler`, before a request exists: the status's own reason phrase.
  notHttp: () => new HttpError(400, 'Bad Request'),
  requestTimeout: () => new HttpError(408, 'Request Timeout'),
  headersTooLarge: () => new HttpError(431, 'Request Header Fields Too Large'),
  bodyTooLarge: (limit: number) =>
    new HttpError(413, `Request body is larger than the limit of ${limit} bytes.`),
  batchTooLarge: (limit: number) =>
    new HttpError(413, `A bulk request may hold at most ${limit} terms.`),
  tooManyValues: (limit: number) =>
    new HttpError(
      413,
      `Request body holds more than ${limit} JSON values; no request needs that many.`,
    ),
  unsupportedEncoding: (encoding: string) =>
    new HttpError(
      415,
      `Unsupported Content-Encoding '${encoding.slice(0, 100)}': send the body uncompressed.`,
      { 'accept-encoding': 'identity' },
    ),
  unsupportedMediaType: (contentType: string | undefined) =>
    new HttpError(
      415,
      contentType
        ? `Unsupported media type '${contentType.slice(0, 100)}': send the body as application/json.`
        : 'A request body needs the Content-Type application/json.',
    ),
  storageUnavailable: () =>
    new HttpError(503, 'The glossary storage is unavailable; try again later.', {
      'retry-after': String(RETRY_AFTER_SECONDS),
    }),
  unknownHost: (host: string) =>
    new HttpError(
      421,
      `This service does not answer for the host '${host.slice(0, 100)}' (ALLOWED_HOSTS).`,
    ),
  bodiesOverBudget: () =>
    new HttpError(
      503,
      'The server is receiving too many request bodies at once; send this one again shortly.',
      { 'retry-after': '1' },
    ),
  tooManyRequests: (max: number, windowMs: number, retryAfterMs: number) =>
    new HttpError(
      429,
      `Too many requests: at most ${max} per ${windowMs / 1000} seconds from one client.`,
      { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) },
    ),
  tooManyFailedAuthentications: (limit: { max: number; windowMs: number }, retryAfterMs: number) =>
    new HttpError(
      429,
      `Too many failed authentications: at most ${limit.max} per ${limit.windowMs / 1000} seconds from one client.`,
      { 'retry-after': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) },
    ),
  internal: () => new HttpError(500, 'Internal Server Error'),
  preconditionFailed: () => new HttpError(412, 'Term has changed since it was read.'),
  authenticationRequired: () =>
    new HttpError(401, 'Authentication required.', { 'www-authenticate': BEARER }),
  invalidToken: () =>
    new HttpError(401, 'Invalid token.', {
      'www-authenticate': `${BEARER}, error="invalid_token"`,
    }),
  readOnlyToken: () =>
    new HttpError(403, 'This token may only read.', {
      'www-authenticate': `${BEARER}, error="insufficient_scope"`,
    }),
  twoAuthorizations: () =>
    new HttpError(400, 'The request has more than one Authorization header; send one.'),
  notAMergePatch: (contentType: string | undefined) =>
    new HttpError(
      415,
      `A PATCH body is a JSON merge patch: send it as application/merge-patch+json or application/json${contentType ? ` (not '${contentType.slice(0, 100)}')` : ''}.`,
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
        return new HttpError(error.statusCode, error.message);
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
