import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errors } from '../errors.ts';
import { message, ValidationErrorBody } from '../schemas/errors.ts';
import {
  BulkResults,
  Term,
  TermIdParams,
  TermInput,
  TermList,
  TermQuery,
} from '../schemas/term.ts';
import type { TermStore } from '../store/term-store.ts';
import { importTerms } from '../terms/import-terms.ts';
import { toTerm } from '../terms/term-input.ts';
import { compileRequestValidator } from '../validation.ts';

export interface TermRoutesOptions {
  store: TermStore;
  batchLimit: number;
}

const invalid = { 422: ValidationErrorBody };
const bodyErrors = {
  ...invalid,
  413: message('The body or the batch is larger than the configured limit.'),
  415: message('The body is not sent as application/json.'),
};

export const termRoutes: FastifyPluginAsyncTypebox<TermRoutesOptions> = async (
  app,
  { store, batchLimit },
) => {
  app.get(
    '/terms',
    {
      schema: {
        summary: 'List terms',
        description:
          'All terms matching every filter given, in creation order. `search` is a case-insensitive literal substring of the term name only.',
        querystring: TermQuery,
        response: { 200: TermList, ...invalid },
      },
    },
    async (request, reply) => {
      const { category, search } = request.query;
      const chunks = store.list({ category, search: search || undefined });
      const body = await jsonArray(chunks);
      // Already JSON text (or a stream of it): Fastify sends it as it is, unserialized.
      return reply.type('application/json; charset=utf-8').send(body as never);
    },
  );

  app.get(
    '/terms/:id',
    {
      schema: {
        summary: 'Fetch one term',
        description: 'When the id was registered more than once, the earliest registered term.',
        params: TermIdParams,
        response: { 200: Term, 404: message('No term has that id.'), ...invalid },
      },
    },
    async (request) => {
      const term = await store.get(request.params.id);
      if (!term) throw errors.termNotFound();
      return term;
    },
  );

  app.post(
    '/terms',
    {
      schema: {
        summary: 'Register one term',
        description:
          'Uniqueness of `id` is not checked here: an existing id creates a duplicate entry.',
        body: TermInput,
        response: { 201: Term, ...bodyErrors },
      },
    },
    async (request, reply) => {
      const term = toTerm(request.body);
      await store.create(term);
      return reply.code(201).send(term);
    },
  );

  app.post(
    '/terms/bulk',
    {
      schema: {
        summary: 'Import many terms',
        description: `One result per item, in order. Each item is validated on its own; an id already stored or repeated in the batch is rejected. The whole batch is one transaction. At most ${batchLimit} items.`,
        body: Type.Array(TermInput, { description: 'The terms to import (at least one).' }),
        response: {
          207: BulkResults,
          400: message('The array is empty.'),
          ...bodyErrors,
        },
      },
      // The items are checked one by one in `importTerms`; the request as a whole only has to
      // be an array.
      validatorCompiler: ({ httpPart }) =>
        compileRequestValidator({ schema: { type: 'array' }, httpPart, method: 'POST', url: '' }),
    },
    async (request, reply) => {
      const items = request.body as unknown[];
      if (items.length === 0) throw errors.emptyBatch();
      if (items.length > batchLimit) throw errors.batchTooLarge(batchLimit);
      return reply.code(207).send(await importTerms(store, items));
    },
  );
};

/**
 * The list as a JSON array, written chunk by chunk as the store reads it, so a million terms
 * never sit in memory at once. The first chunk is read before anything is sent: a storage
 * failure there is still a clean 503, and a short list goes out as one string.
 */
async function jsonArray(chunks: AsyncIterable<Term[]>): Promise<string | Readable> {
  const iterator = chunks[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) return '[]';
  const head = serialize(first.value);
  const second = await iterator.next();
  if (second.done) return `[${head}]`;
  const stream = Readable.from(
    (async function* () {
      yield `[${head}`;
      yield `,${serialize(second.value)}`;
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
        yield `,${serialize(next.value)}`;
      }
      yield ']';
    })(),
  );
  // When the client goes away mid-list the stream is destroyed, possibly before the generator
  // above has even started: end the store's iteration too, so it releases what it holds (a
  // PostgreSQL connection and snapshot). After a complete list this does nothing.
  stream.once('close', () => {
    iterator.return?.().catch(() => undefined);
  });
  return stream;
}

function serialize(terms: readonly Term[]): string {
  return terms.map((term) => JSON.stringify(term)).join(',');
}
