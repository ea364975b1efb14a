import type { FastifyInstance } from 'fastify';
import { RequestValidationError } from './errors.ts';

/**
 * The only request body the service reads is JSON (`application/json`, with or without a
 * charset, or any `+json` type). Anything else is 415. The body must be valid UTF-8 and valid
 * JSON, or the answer is a 422 `value_error.jsondecode`. Keys such as `__proto__` stay plain
 * data: `JSON.parse` makes them own properties and nothing merges them into other objects.
 */
export function registerJsonBody(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  for (const type of ['application/json', /^application\/[a-z0-9!#$&^_.-]+\+json(?:\s*;|$)/i]) {
    app.addContentTypeParser(type, { parseAs: 'buffer' }, (_request, body, done) => {
      try {
        done(null, parseJson(body as Buffer));
      } catch (error) {
        done(error as Error, undefined);
      }
    });
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
