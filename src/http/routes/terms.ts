import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { importTerms, previewImport } from '../../glossary/import-terms.ts';
import { listFilter, listTerms } from '../../glossary/list-terms.ts';
import { type Term, termOf } from '../../glossary/term.ts';
import type { TermStore } from '../../glossary/term-store.ts';
import { writeWarnings } from '../../glossary/write-warnings.ts';
import { errors } from '../errors.ts';
import { bodyEtag, listEtag, noneMatch } from '../etag.ts';
import { READ_SECURITY, WRITE_SECURITY } from '../openapi-document.ts';
import { pageLinks } from '../page-links.ts';
import { changeBy } from '../plugins/access.ts';
import { LIST_COMPRESSION } from '../plugins/compression.ts';
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
  BulkQuery,
  IfNoneMatchHeaders,
  TermIdParams,
  TermInput,
  TermQuery,
} from '../schemas/term.ts';
import { checkBulkItem, describeConflict } from '../term-input.ts';
import {
  headBody,
  type JsonStream,
  type JsonText,
  jsonStream,
  jsonText,
  sendJson,
  serializeTerm,
  serializeTerms,
} from '../term-json.ts';
import { compileRequestValidator } from '../validation.ts';
import { BulkResults, EXAMPLE_TERM, TermList, TermSchema, ValidationErrorBody } from '../wire.ts';
import { sendWarnings, warningHeader } from '../write-warnings.ts';

export interface TermRoutesOptions {
  store: TermStore;
  batchLimit: number;
}

const invalid = {
  422: ValidationErrorBody,
  ...unavailable,
  ...rateLimited,
  ...accessErrors,
  ...misdirected,
  ...anyRequestErrors,
};
// No body at all, so `send()` with nothing (a null would be serialized as `null`).
const notModified = Type.Unsafe<undefined>({
  type: 'null',
  description: 'Not Modified: the `If-None-Match` tag is still current; no body.',
});
const etagHeader = Type.String({ description: 'Changes whenever the response would change.' });
// Response headers as @fastify/swagger reads them: header name -> schema.
const termHeaders = { etag: etagHeader };
const listHeaders = {
  etag: etagHeader,
  'x-total-count': Type.Integer({ description: 'With `limit`: how many terms match in all.' }),
  link: Type.String({
    description: 'With `limit`: RFC 8288 links to the `next` and `prev` pages, when there are.',
  }),
};

export const termRoutes: FastifyPluginAsyncTypebox<TermRoutesOptions> = async (
  app,
  { store, batchLimit },
) => {
  const withBody = bodyErrors(app.initialConfig.bodyLimit ?? 0);
  app.get(
    '/terms',
    {
      compress: LIST_COMPRESSION,
      config: { access: 'read' },
      schema: {
        summary: 'List terms',
        operationId: 'listTerms',
        tags: ['terms'],
        description:
          'All terms matching every filter given, in creation order unless `sort` says otherwise. `search` is a case-insensitive literal substring of the term name only; `links_to` lists the terms that link to an id. With `limit`, one page and the headers `X-Total-Count` and `Link`. An `ETag` changes whenever the glossary changes; `If-None-Match` with it answers 304.',
        querystring: TermQuery,
        headers: IfNoneMatchHeaders,
        security: READ_SECURITY,
        response: {
          200: { ...TermList, headers: listHeaders },
          304: notModified,
          ...invalid,
        },
      },
    },
    async (request, reply) => {
      const { category, search, sort, limit, offset, from, q, links_to } = request.query;
      listFilter(request.query); // a query it refuses is refused before anything is read
      // Read before the list: a change in between is then in the body but not in the tag, so a
      // tag is never newer than its body and an outdated body never earns a 304.
      const etag = listEtag(await store.revision(), {
        category,
        search,
        sort,
        limit,
        offset,
        from,
        q,
        links_to,
      });
      reply.header('etag', etag);
      if (noneMatch(request.headers['if-none-match'], etag)) return reply.code(304).send();
      const { terms, total } = await listTerms(store, request.query);
      if (total !== undefined && limit !== undefined) {
        reply.header('x-total-count', String(total));
        const links = pageLinks(request.url, { offset: offset ?? 0, limit, total });
        if (links) reply.header('link', links);
      }
      const body = await jsonArray(terms);
      reply.type('application/json; charset=utf-8');
      if (request.method === 'HEAD' && body instanceof Readable) {
        // Headers only: no need to read a long list just to drop it.
        body.destroy();
        return sendJson(reply, headBody<Term[]>());
      }
      return sendJson(reply, body);
    },
  );

  app.get(
    '/terms/:id',
    {
      config: { access: 'read' },
      schema: {
        summary: 'Fetch one term',
        operationId: 'getTerm',
        tags: ['terms'],
        description:
          'When the id was registered more than once, the earliest registered term. The `ETag` is a hash of the body; `If-None-Match` with it answers 304.',
        params: TermIdParams,
        headers: IfNoneMatchHeaders,
        security: READ_SECURITY,
        response: {
          ...invalid,
          200: { ...TermSchema, headers: termHeaders },
          304: notModified,
          404: message('No term has that id.', { termNotFound: errors.termNotFound() }),
          400: message(
            'The path is not a valid URL (a broken percent-encoding), or the request has more than one Authorization header.',
            { badUrl: errors.badUrl(), twoAuthorizations: errors.twoAuthorizations() },
          ),
          414: message('The id in the path is longer than any valid id.', {
            urlTooLong: errors.urlTooLong(),
          }),
        },
      },
    },
    async (request, reply) => {
      const term = await store.get(request.params.id);
      if (!term) throw errors.termNotFound();
      const body = serializeTerm(term);
      const etag = bodyEtag(body);
      reply.header('etag', etag);
      if (noneMatch(request.headers['if-none-match'], etag)) return reply.code(304).send();
      return sendJson(reply.type('application/json; charset=utf-8'), body);
    },
  );

  app.post(
    '/terms',
    {
      config: { access: 'write' },
      schema: {
        security: WRITE_SECURITY,
        summary: 'Register one term',
        operationId: 'createTerm',
        tags: ['terms'],
        description:
          'Uniqueness of `id` is not checked here: an existing id creates a duplicate entry (POST /terms/bulk refuses one). `Location` is `/terms/{id}`, which answers the earliest term with the id: the new one, unless the id was registered before.',
        body: TermInput,
        response: {
          201: {
            ...TermSchema,
            description: 'The term as stored.',
            headers: {
              location: {
                type: 'string',
                required: true,
                description:
                  '`/terms/{id}`, where GET answers the earliest term registered with the id: this one, unless the id was registered before (then the earlier term).',
              },
              ...warningHeader,
            },
          },
          ...invalid,
          ...withBody,
        },
      },
    },
    async (request, reply) => {
      const term = termOf(request.body);
      await store.create(term, changeBy(request));
      await sendWarnings(request, reply, () => writeWarnings(store, term));
      return reply.code(201).header('location', `/terms/${term.id}`).send(term);
    },
  );

  app.post(
    '/terms/bulk',
    {
      config: { access: 'write' },
      schema: {
        security: WRITE_SECURITY,
        summary: 'Import many terms',
        operationId: 'importTerms',
        tags: ['terms'],
        description: `One result per item, in order. Each item is validated on its own; an id already stored or repeated in the batch is rejected. The whole batch is one transaction. At most ${batchLimit} items. With \`dry_run=true\`, the results say what the import would do, and nothing is stored.`,
        querystring: BulkQuery,
        // As the service reads it: any array of 1 to BATCH_LIMIT values, each judged on its own
        // (an item that is not a valid term gets an `error` result, not a 422 for the batch).
        body: Type.Array(
          Type.Unknown({
            description:
              'A term, as TermInput describes it. Each item is judged on its own: an invalid one gets an `error` result with the reason.',
          }),
          {
            minItems: 1,
            maxItems: batchLimit,
            description: `The terms to import: 1 to ${batchLimit} (an empty array is 400, a longer one 413).`,
            examples: [[EXAMPLE_TERM, { ...EXAMPLE_TERM, id: 7, term: 'Retry' }]],
          },
        ),
        response: {
          ...invalid,
          ...withBody,
          207: BulkResults,
          400: message(
            'The array is empty, or the request has more than one Authorization header.',
            { emptyBatch: errors.emptyBatch(), twoAuthorizations: errors.twoAuthorizations() },
          ),
          413: message(
            `The body is larger than BODY_LIMIT, or the batch holds more than ${batchLimit} items (BATCH_LIMIT); nothing is stored.`,
            {
              bodyTooLarge: errors.bodyTooLarge(app.initialConfig.bodyLimit ?? 0),
              batchTooLarge: errors.batchTooLarge(batchLimit),
            },
          ),
        },
      },
      // The items are checked one by one in `importTerms`; the request as a whole only has to
      // be an array.
      validatorCompiler: ({ httpPart, schema }) =>
        compileRequestValidator({
          schema: httpPart === 'body' ? { type: 'array' } : schema,
          httpPart,
          method: 'POST',
          url: '',
        }),
    },
    async (request, reply) => {
      const items = request.body as unknown[];
      if (items.length === 0) throw errors.emptyBatch();
      if (items.length > batchLimit) throw errors.batchTooLarge(batchLimit);
      const checked = items.map(checkBulkItem);
      const results =
        request.query.dry_run === 'true'
          ? await previewImport(store, checked, describeConflict)
          : await importTerms(store, checked, changeBy(request), describeConflict);
      return reply.code(207).send(results);
    },
  );
};

/**
 * The list as a JSON array, written chunk by chunk as the store reads it, so a million terms
 * never sit in memory at once. The first chunk is read before anything is sent: a storage
 * failure there is still a clean 503, and a short list goes out as one string. The stream is
 * pulled: the next chunk is read from the store only when the socket has taken the previous
 * one (byte mode, so at most one chunk waits beyond the highWaterMark), which keeps a slow
 * client from making the server buffer the list.
 */
async function jsonArray(
  chunks: AsyncIterable<Term[]>,
): Promise<JsonText<Term[]> | JsonStream<Term[]>> {
  const iterator = chunks[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) return jsonText('[]');
  const head = serializeTerms(first.value);
  const second = await iterator.next();
  if (second.done) return jsonText(`[${head}]`);
  const stream = Readable.from(
    (async function* () {
      yield `[${head}`;
      yield `,${serializeTerms(second.value)}`;
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
        yield `,${serializeTerms(next.value)}`;
      }
      yield ']';
    })(),
    { objectMode: false },
  );
  // When the client goes away mid-list the stream is destroyed, possibly before the generator
  // above has even started: end the store's iteration too, so it releases what it holds (a
  // PostgreSQL connection and snapshot). After a complete list this does nothing.
  stream.once('close', () => {
    iterator.return?.().catch(() => undefined);
  });
  return jsonStream(stream);
}

/** `from` is a place in the alphabetical order, so it means nothing in another order. */
