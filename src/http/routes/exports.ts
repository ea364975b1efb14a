import { once } from 'node:events';
import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ZipFile } from 'yazl';
import type { ExportFormat, TermSource } from '../../glossary/exports/format.ts';
import { EXPORT_FORMATS, exportFormat, exportFormats } from '../../glossary/exports/formats.ts';
import { listFilter, listTerms } from '../../glossary/list-terms.ts';
import type { TermStore } from '../../glossary/term-store.ts';
import { READ_SECURITY } from '../openapi-document.ts';
import {
  accessErrors,
  anyRequestErrors,
  misdirected,
  rateLimited,
  unavailable,
} from '../schemas/errors.ts';
import { TermQuery } from '../schemas/term.ts';
import { sendStream } from '../term-json.ts';
import { ValidationErrorBody } from '../wire.ts';

export interface ExportRoutesOptions {
  store: TermStore;
}

const ExportParams = Type.Object({
  format: Type.Unsafe<string>({
    type: 'string',
    enum: [...EXPORT_FORMATS],
    examples: ['csv'],
    description: `The format:\n${exportFormats()
      .map((format) => `- \`${format.name}\`: ${format.description}`)
      .join('\n')}`,
  }),
});

/** The filters of GET /terms that make sense for a whole file: the same schemas, the same 422s. */
const ExportQuery = Type.Object({
  category: TermQuery.properties.category,
  q: TermQuery.properties.q,
});

// Any byte string: the checker and clients must not read it as JSON whatever its media type.
// One short example of each media type, for the reference.
const EXAMPLES: Record<string, string> = {
  'application/json':
    '[\n  {"id":42,"term":"Idempotency","definition":"Repeating a request has the effect of doing it once.","category":"backend","see_also":[7,9]}\n]\n',
  'text/csv':
    'id,term,definition,category,see_also,aliases,avoid\r\n42,Idempotency,Repeating a request has the effect of doing it once.,backend,7;9,,\r\n',
  'text/markdown':
    '# Glossary\n\n## backend\n\n### <a id="term-42"></a>Idempotency\n\nRepeating a request has the effect of doing it once.\n',
  'application/x-tbx':
    '<?xml version="1.0" encoding="UTF-8"?>\n<tbx type="TBX-Basic" style="dca" xml:lang="en" xmlns="urn:iso:std:iso:30042:ed-2">...</tbx>\n',
  'text/x-rst':
    'Glossary\n========\n\n.. glossary::\n\n   Idempotency\n      Repeating a request has the effect of doing it once.\n',
  'application/zip': "(a zip archive: the folder's files at its root)",
};
const mediaTypes = [
  ...new Set(
    exportFormats().map((format) =>
      format.kind === 'file' ? (format.mediaType.split(';')[0] ?? '').trim() : 'application/zip',
    ),
  ),
];
const content = Object.fromEntries(
  mediaTypes.map((type) => [
    type,
    { schema: Type.String({ format: 'binary' }), example: EXAMPLES[type] ?? '' },
  ]),
);

function download(format: ExportFormat): { type: string; name: string } {
  return format.kind === 'file'
    ? { type: format.mediaType, name: format.fileName }
    : { type: 'application/zip', name: `${format.folderName}.zip` };
}

export const exportRoutes: FastifyPluginAsyncTypebox<ExportRoutesOptions> = async (
  app,
  { store },
) => {
  app.get(
    '/exports/:format',
    {
      config: { access: 'read' },
      schema: {
        summary: 'Export the glossary in a format',
        operationId: 'exportTerms',
        tags: ['exports'],
        description:
          "The terms matching `category` and `q` (as on GET /terms), as a file to download, written as the terms are read. A folder format (`vale`, `mkdocs`, `hugo`) is a `.zip` with the folder's files at its root.",
        params: ExportParams,
        querystring: ExportQuery,
        security: READ_SECURITY,
        response: {
          200: {
            description: 'The export, as an attachment (`Content-Disposition`).',
            headers: {
              'content-disposition': {
                type: 'string',
                description: 'attachment; filename="glossary.csv" (the format\'s file name)',
              },
            },
            content,
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
      // The schema's enum only lets registered names through.
      const format = exportFormat(request.params.format) as ExportFormat;
      const query = { category: request.query.category, q: request.query.q };
      listFilter(query); // a query it refuses is refused before anything is read
      const { type, name } = download(format);
      reply.type(type).header('content-disposition', `attachment; filename="${name}"`);
      // Headers only (chunked, as a GET): nothing is read.
      if (request.method === 'HEAD') return sendStream(reply, Readable.from([]));
      const source: TermSource = () => ({
        async *[Symbol.asyncIterator]() {
          const { terms } = await listTerms(store, query);
          yield* terms;
        },
      });
      return sendStream(
        reply,
        format.kind === 'file'
          ? await fileStream(format.render(source))
          : zipStream(format.render(source)),
      );
    },
  );
};

/**
 * A file format's text, pulled piece by piece as the socket takes it. The first piece is read
 * before anything is sent, so a storage failure there is still a clean 503. When the client goes
 * away, the renderer (and the store's iteration under it) is ended, releasing what it holds.
 */
async function fileStream(pieces: AsyncIterable<string>): Promise<Readable> {
  const iterator = pieces[Symbol.asyncIterator]();
  const first = await iterator.next();
  const stream = Readable.from(
    (async function* () {
      if (first.done) return;
      yield first.value;
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
        yield next.value;
      }
    })(),
    { objectMode: false },
  );
  stream.once('close', () => {
    iterator.return?.(undefined).catch(() => undefined);
  });
  return stream;
}

/**
 * A folder format as a zip (yazl), each file added as the renderer gives it, at the zip's root.
 * The next file is rendered only once the zip's output has room; a client that goes away ends
 * the renderer.
 */
function zipStream(files: AsyncIterable<{ path: string; content: string }>): Readable {
  const zip = new ZipFile();
  const output = zip.outputStream as Readable & { writableNeedDrain?: boolean };
  const iterator = files[Symbol.asyncIterator]();
  let closed = false;
  output.once('close', () => {
    closed = true;
    iterator.return?.(undefined).catch(() => undefined);
  });
  (async () => {
    for (let next = await iterator.next(); !next.done && !closed; next = await iterator.next()) {
      zip.addBuffer(Buffer.from(next.value.content, 'utf8'), next.value.path, { mtime: EPOCH });
      if (output.writableNeedDrain)
        await Promise.race([once(output, 'drain'), once(output, 'close')]);
    }
    if (!closed) zip.end();
  })().catch((error: unknown) => {
    // Headers are gone already: all the client can learn is a cut-off zip.
    output.destroy(error instanceof Error ? error : new Error(String(error)));
  });
  return output;
}

// Every export of the same terms is the same bytes.
const EPOCH = new Date(Date.UTC(2000, 0, 1));
