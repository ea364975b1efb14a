import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { errors, RequestValidationError } from '../errors.ts';

/**
 * The only request body the service reads is JSON (`application/json`, with or without a
 * charset, or any `+json` type). Anything else is 415. The body must be valid UTF-8 and valid
 * JSON, or the answer is a 422 `value_error.jsondecode`. Keys such as `__proto__` stay plain
 * data: `JSON.parse` makes them own properties and nothing merges them into other objects.
 */
export const jsonBody = fp(
  async (app: FastifyInstance, { maxValues }: { maxValues: number }) =>
    registerJsonBody(app, maxValues),
  { name: 'json-body', fastify: '5.x' },
);

function registerJsonBody(app: FastifyInstance, maxValues: number): void {
  // A compressed body would be read as if it were not (a gzip body "is not valid UTF-8"; a
  // plain body labelled gzip stored as it is): refused before it is read, with the coding
  // the service accepts (RFC 7694). Decoding is left out on purpose: a few kilobytes of gzip
  // can inflate to gigabytes.
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const encoding = request.headers['content-encoding']?.trim().toLowerCase();
    if (encoding && encoding !== 'identity') {
      done(errors.unsupportedEncoding(request.headers['content-encoding'] ?? ''), payload);
      return;
    }
    done(null, payload);
  });
  app.removeAllContentTypeParsers();
  for (const type of ['application/json', /^application\/[a-z0-9!#$&^_.-]+\+json(?:\s*;|$)/i]) {
    app.addContentTypeParser(type, { parseAs: 'buffer' }, (_request, body, done) => {
      try {
        checkShape(body as Buffer, maxValues);
        done(null, parseJson(body as Buffer));
      } catch (error) {
        done(error as Error, undefined);
      }
    });
  }
}

/** Deeper than any term, patch or batch needs (a batch of terms is 3 deep). */
export const MAX_DEPTH = 32;

/**
 * Refuses, before it is parsed and validated, a body whose shape no request of this API can
 * have: nested deeper than MAX_DEPTH, or holding more values than `maxValues` (counted as the
 * commas outside strings). Parsing and validating 16 MiB of nested arrays or empty objects
 * would hold the event loop for seconds; this one pass over the bytes takes milliseconds.
 */
function checkShape(body: Buffer, maxValues: number): void {
  let depth = 0;
  let values = 0;
  for (let i = 0; i < body.length; i += 1) {
    const byte = body[i];
    if (byte === 0x22) {
      // Skip the string, its escapes included.
      for (i += 1; i < body.length && body[i] !== 0x22; i += 1) if (body[i] === 0x5c) i += 1;
    } else if (byte === 0x5b || byte === 0x7b) {
      depth += 1;
      if (depth > MAX_DEPTH) {
        throw decodeError(`the JSON is nested deeper than ${MAX_DEPTH} levels`, i);
      }
    } else if (byte === 0x5d || byte === 0x7d) {
      depth -= 1;
    } else if (byte === 0x2c) {
      values += 1;
      if (values > maxValues) throw errors.tooManyValues(maxValues);
    }
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

export function parseJson(body: Buffer): unknown {
  // No body at all is a missing body (422 `field required` at ["body"]), as in FastAPI.
  if (body.length === 0) return undefined;
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw decodeError('the body is not valid UTF-8', undefined);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    const { reason, position } = describeSyntaxError(error as SyntaxError, text);
    throw decodeError(reason, position);
  }
}

function decodeError(reason: string, position: number | undefined): RequestValidationError {
  return new RequestValidationError([
    {
      loc: position === undefined ? ['body'] : ['body', position],
      msg: `JSON decode error: ${reason}`,
      type: 'value_error.jsondecode',
    },
  ]);
}

/**
 * V8's messages quote part of the input; the client already has its input, so the reason is
 * kept short and the character position is given on its own where V8 knows it.
 */
function describeSyntaxError(
  error: SyntaxError,
  text: string,
): { reason: string; position: number | undefined } {
  const message = error.message;
  if (/^Unexpected end of JSON input/.test(message) || text.trim() === '') {
    return { reason: 'Unexpected end of JSON input', position: text.length };
  }
  const at = /in JSON at position (\d+)/.exec(message);
  const reason = message.replace(/ in JSON at position \d+.*$/s, '').replace(/, ".*$/s, '');
  return { reason, position: at ? Number(at[1]) : undefined };
}
