import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  deleteTerm,
  patchTerm,
  replaceTerm,
  restoreRevision,
  termHistory,
} from '../../glossary/edit-terms.ts';
import { NameConflictError } from '../../glossary/other-names.ts';
import { MAX_HISTORY_PAGE, type Term, termOf } from '../../glossary/term.ts';
import type { TermStore } from '../../glossary/term-store.ts';
import { deleteWarnings, writeWarnings } from '../../glossary/write-warnings.ts';
import { errors, nameConflictFault, RequestValidationError } from '../errors.ts';
import { bodyEtag, ifMatch } from '../etag.ts';
import { READ_SECURITY, WRITE_SECURITY } from '../openapi-document.ts';
import { historyLinks } from '../page-links.ts';
import { changeBy } from '../plugins/access.ts';
import {
  accessErrors,
  anyRequestErrors,
  bodyErrors,
  message,
  misdirected,
  rateLimited,
  unavailable,
} from '../schemas/errors.ts';
import {
  HistoryQuery,
  IfMatchHeaders,
  RestoreRequest,
  TermIdParams,
  TermInput,
  TermPatch,
} from '../schemas/term.ts';
import { checkTerm } from '../term-input.ts';
import { type JsonText, sendJson, serializeTerm } from '../term-json.ts';
import { compileRequestValidator } from '../validation.ts';
import { HistoryList, TermSchema, ValidationErrorBody } from '../wire.ts';
import { sendWarnings, warningHeader } from '../write-warnings.ts';

/**
 * Correcting the glossary: PUT, PATCH and DELETE of a term, its history, and restoring a
 * revision. Each acts on the term GET /terms/{id} shows; each honours `If-Match` with that
 * term's ETag (412 when it no longer matches) and answers a changed term with its new ETag.
 */

const etagHeader = Type.String({ description: 'The strong ETag of the term as it now is.' });
const historyHeaders = {
  'x-total-count': Type.Integer({
    description: 'How many entries the history holds in all (older than `before`, when given).',
  }),
  link: Type.String({
    description:
      'RFC 8288 links to the `next` (older) page, when there is one, and to the `prev` page when `offset` skipped entries.',
  }),
};
const changed = {
  ...TermSchema,
  description: 'The term as it now is.',
  headers: { etag: { ...etagHeader, required: true }, ...warningHeader },
};
/**
 * A term's path: one that is not a valid URL, no term with that id, or an id longer than any
 * (the router's limit).
 */
const idErrors = {
  400: message(
    'The path is not a valid URL (a broken percent-encoding), or the request has more than one Authorization header.',
    { badUrl: errors.badUrl(), twoAuthorizations: errors.twoAuthorizations() },
  ),
  404: message('No term has that id.', { termNotFound: errors.termNotFound() }),
  414: message('The id in the path is longer than any valid id.', {
    urlTooLong: errors.urlTooLong(),
  }),
};
const stale = {
  412: message('`If-Match` names a state the term is no longer in.', {
    preconditionFailed: errors.preconditionFailed(),
  }),
};
const invalid = {
  422: ValidationErrorBody,
  ...unavailable,
  ...rateLimited,
  ...accessErrors,
  ...misdirected,
  ...anyRequestErrors,
  ...idErrors,
};
/** PATCH names the media types it takes (RFC 5789 `Accept-Patch`). */
const notAMergePatch = {
  415: {
    ...message(
      'The body is not sent as application/merge-patch+json or application/json, or is sent compressed.',
      {
        notAMergePatch: errors.notAMergePatch('text/plain'),
        unsupportedEncoding: errors.unsupportedEncoding('gzip'),
      },
    ),
    headers: {
      'accept-patch': {
        type: 'string',
        description: 'For a body of another type: the media types PATCH takes.',
      },
      'accept-encoding': {
        type: 'string',
        description: 'For a compressed body: `identity`, send it uncompressed.',
      },
    },
  },
};

export const termEditRoutes: FastifyPluginAsyncTypebox<{ store: TermStore }> = async (
  app,
  { store },
) => {
  const withBody = bodyErrors(app.initialConfig.bodyLimit ?? 0);
  app.put(
    '/terms/:id',
    {
      config: { access: 'write' },
      schema: {
        security: WRITE_SECURITY,
        summary: 'Replace a term',
        operationId: 'replaceTerm',
        tags: ['terms'],
        description:
          'The whole term, validated as POST /terms validates one; its `id` must be the path id. The term keeps its place in creation order.',
        params: TermIdParams,
        headers: IfMatchHeaders,
        body: TermInput,
        response: { 200: changed, ...stale, ...invalid, ...withBody },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      if (request.body.id !== id) throw idMismatch(id, request.body.id);
      const term = await replaceTerm(store, termOf(request.body), editOptions(request));
      await sendWarnings(request, reply, () => writeWarnings(store, term));
      return sendJson(reply, termAnswer(reply, term));
    },
  );

  app.patch(
    '/terms/:id',
    {
      config: { access: 'write' },
      schema: {
        security: WRITE_SECURITY,
        summary: 'Change some fields of a term',
        operationId: 'patchTerm',
        tags: ['terms'],
        description:
          'A JSON merge patch (RFC 7396), sent as `application/merge-patch+json` or `application/json`: each member given replaces that field, `null` removes it (`see_also: null`, `aliases: null`, `avoid: null` clear that list). The merged term is validated as a whole, as POST /terms validates one.',
        params: TermIdParams,
        headers: IfMatchHeaders,
        body: TermPatch,
        response: { 200: changed, ...stale, ...invalid, ...withBody, ...notAMergePatch },
      },
      // The patch is only checked to be an object here: its members are judged in the merged
      // term, where a fault has the place it has in a term.
      validatorCompiler: ({ httpPart, schema }) =>
        compileRequestValidator({
          schema: httpPart === 'body' ? { type: 'object' } : schema,
          httpPart,
          method: 'PATCH',
          url: '',
        }),
      preValidation: (request, _reply, done) => {
        const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
        if (type !== 'application/json' && type !== 'application/merge-patch+json') {
          return done(errors.notAMergePatch(request.headers['content-type']));
        }
        done();
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const patch = request.body as Record<string, unknown>;
      if ('id' in patch && patch.id !== id) throw idMismatch(id, patch.id);
      const term = await patchTerm(store, id, patch, {
        ...editOptions(request),
        validate: (candidate) => {
          const checked = checkTerm(candidate);
          if (!checked.ok) throw new RequestValidationError(checked.faults);
          return checked.term;
        },
      });
      await sendWarnings(request, reply, () => writeWarnings(store, term));
      return sendJson(reply, termAnswer(reply, term));
    },
  );

  app.delete(
    '/terms/:id',
    {
      config: { access: 'write' },
      schema: {
        security: WRITE_SECURITY,
        summary: 'Delete a term',
        operationId: 'deleteTerm',
        tags: ['terms'],
        description:
          "Removes the term GET /terms/{id} shows; a later term with the same id, if any, takes its place, and otherwise the id is free again. The term stays in the id's history and can be restored.",
        params: TermIdParams,
        headers: IfMatchHeaders,
        response: {
          204: { ...Type.Null({ description: 'Deleted; no body.' }), headers: warningHeader },
          ...idErrors,
          ...stale,
          ...invalid,
        },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      await deleteTerm(store, id, editOptions(request));
      await sendWarnings(request, reply, () => deleteWarnings(store, id));
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/terms/:id/history',
    {
      config: { access: 'read' },
      schema: {
        security: READ_SECURITY,
        summary: "A term's history",
        operationId: 'termHistory',
        tags: ['terms'],
        description: `The changes of the id, newest first, a page at a time (${MAX_HISTORY_PAGE} entries unless \`limit\` asks for fewer): \`created\`, \`updated\`, \`deleted\` or \`restored\`, when (\`at\`, RFC 3339 UTC; never earlier than the entry before it), by which token (\`by\`, null while writes were open), and the state after it. \`X-Total-Count\` counts the entries, \`Link\` leads to the \`next\` (older) page with a \`before\` cursor. 404 only for an id that never existed.`,
        params: TermIdParams,
        querystring: HistoryQuery,
        response: {
          200: { ...HistoryList, headers: historyHeaders },
          ...idErrors,
          ...invalid,
        },
      },
    },
    async (request, reply) => {
      const { limit = MAX_HISTORY_PAGE, offset = 0, before } = request.query;
      const { entries, total } = await termHistory(store, request.params.id, {
        limit,
        offset,
        before,
      });
      reply.header('x-total-count', String(total));
      const last = entries.at(-1)?.revision;
      const links = historyLinks(request.url, { offset, limit, total, last });
      if (links) reply.header('link', links);
      return entries.map((entry) => ({ ...entry, at: new Date(entry.at).toISOString() }));
    },
  );

  app.post(
    '/terms/:id/restore',
    {
      config: { access: 'write' },
      schema: {
        security: WRITE_SECURITY,
        summary: 'Restore a revision of a term',
        operationId: 'restoreTerm',
        tags: ['terms'],
        description:
          'Brings back the state of one `revision` of the id\'s history: the term takes that state, or, if it was deleted, comes back at its old place. `If-Match` is compared with the term as it is now (a deleted term matches no tag). A state whose names another term now holds (a name to avoid that is now another term\'s name or alias, or the other way round) is 422 at `["body","revision"]`, naming that term.',
        params: TermIdParams,
        headers: IfMatchHeaders,
        body: RestoreRequest,
        response: { 200: changed, ...stale, ...invalid, ...withBody },
      },
    },
    async (request, reply) => {
      const { revision } = request.body;
      const term = await restoreRevision(
        store,
        request.params.id,
        revision,
        editOptions(request),
      ).catch((error: unknown) => {
        // The names at fault are in the revision, not in this body: the fault is its `revision`.
        if (!(error instanceof NameConflictError)) throw error;
        throw new RequestValidationError([
          { ...nameConflictFault(error), loc: ['body', 'revision'], input: revision },
        ]);
      });
      await sendWarnings(request, reply, () => writeWarnings(store, term));
      return sendJson(reply, termAnswer(reply, term));
    },
  );
};

function editOptions(request: FastifyRequest) {
  const header = request.headers['if-match'];
  return {
    change: changeBy(request),
    precondition:
      header === undefined
        ? undefined
        : (current: Term | undefined) =>
            current !== undefined && ifMatch(header, bodyEtag(serializeTerm(current))),
  };
}

/** Sets the headers of a changed term's answer (its new ETag); the body to send. */
function termAnswer(reply: FastifyReply, term: Term): JsonText<Term> {
  const body = serializeTerm(term);
  reply.header('etag', bodyEtag(body)).type('application/json; charset=utf-8');
  return body;
}

/** PUT and PATCH may not move a term to another id. */
function idMismatch(id: number, given: unknown): RequestValidationError {
  return new RequestValidationError([
    {
      loc: ['body', 'id'],
      msg: `unexpected value; permitted: ${id}`,
      type: 'value_error.const',
      input: given,
    },
  ]);
}
