import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';

/**
 * The warnings of a write (glossary/write-warnings.ts) as HTTP says them: one
 * `Warning: 299 - "text"` header each (RFC 7234 §5.5; 299, a warning that holds whatever
 * caches do), beside an answer whose body stays exactly what it was without them.
 */

/** The header as the OpenAPI document describes it on each answer that may carry it. */
export const warningHeader = {
  warning: Type.String({
    description:
      'One `Warning: 299 - "..."` header per thing the write was accepted with but should be told of: a `see_also` id no term has (`see_also: no term has id 999.`), another term with the same name (`term: term 12 has the same name.`), terms that link to a deleted term (`terms 3, 7 link to this term.`). Absent when there is none.',
    examples: ['299 - "see_also: no term has id 999."'],
  }),
};

/**
 * Reads the warnings after the write and sets their headers. The write has committed: a
 * failure to read them (the storage gone a moment later) is logged and the answer goes out
 * without them, never as an error.
 */
export async function sendWarnings(
  request: FastifyRequest,
  reply: FastifyReply,
  read: () => Promise<string[]>,
): Promise<void> {
  let warnings: string[];
  try {
    warnings = await read();
  } catch (error) {
    request.log.warn({ err: error }, 'could not read the warnings of a write');
    return;
  }
  if (warnings.length === 0) return;
  reply.header(
    'warning',
    warnings.map((text) => `299 - "${text.replace(/["\\]/g, (char) => `\\${char}`)}"`),
  );
}
