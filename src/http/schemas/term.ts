import { type Static, Type } from 'typebox';
import {
  CATEGORIES,
  type Category,
  MAX_DEFINITION_LENGTH,
  MAX_ID,
  MAX_PAGE_SIZE,
  MAX_SEARCH_LENGTH,
  MAX_SEE_ALSO,
  MAX_TERM_LENGTH,
  SORT_KEYS,
  type SortKey,
  VISIBLE_CHARACTER,
} from '../../glossary/term.ts';

/**
 * The term schemas: one definition drives request validation (see `validation.ts`), the
 * TypeScript types and the OpenAPI document.
 */

/** The term every example in the document shows. */
export const EXAMPLE_TERM = {
  id: 42,
  term: 'Idempotency',
  definition: 'Repeating a request has the same effect as sending it once.',
  category: 'backend',
  see_also: [7],
};

/** Integers a JSON client can represent exactly: ±(2^53 − 1). */
export const TermId = Type.Integer({
  title: 'TermId',
  minimum: -MAX_ID,
  maximum: MAX_ID,
  description: 'Numeric identifier supplied by the client, within ±(2^53 − 1).',
  examples: [42],
});

export const CategorySchema = Type.Unsafe<Category>({
  title: 'Category',
  type: 'string',
  enum: [...CATEGORIES],
  description: 'Category of the term.',
});

/**
 * A non-blank string of well-formed Unicode (no lone UTF-16 surrogates, which could not be
 * stored and returned unchanged). `pattern` rejects a value with no visible character
 * (glossary/term.ts `isBlank`); the `well-formed-unicode` format is registered in
 * `validation.ts`.
 */
function text(maxLength: number, description: string) {
  return Type.String({
    minLength: 1,
    maxLength,
    pattern: VISIBLE_CHARACTER,
    format: 'well-formed-unicode',
    description,
  });
}

const SEE_ALSO_DOC = 'IDs of related terms (one-way; they need not exist).';
const SeeAlsoIds = Type.Array(TermId, { maxItems: MAX_SEE_ALSO });

/** A term as a client sends it: `see_also` may be omitted or null (stored as `[]`). */
export const TermInput = Type.Object(
  {
    id: TermId,
    term: text(MAX_TERM_LENGTH, 'Canonical name of the technical concept.'),
    definition: text(MAX_DEFINITION_LENGTH, 'Concise technical explanation of the term.'),
    category: CategorySchema,
    see_also: Type.Optional(
      Type.Unsafe<number[] | null>({
        ...SeeAlsoIds,
        type: ['array', 'null'],
        description: `${SEE_ALSO_DOC} Omitted or null means [].`,
      }),
    ),
  },
  {
    title: 'TermInput',
    description: 'A term to register. Unknown fields are ignored.',
    examples: [EXAMPLE_TERM],
  },
);
export type TermInput = Static<typeof TermInput>;

/** A term as the service returns it: always exactly these five fields, in this order. */
export const TermSchema = Type.Object(
  {
    id: TermId,
    term: Type.String(),
    definition: Type.String(),
    category: CategorySchema,
    see_also: Type.Array(TermId, { description: SEE_ALSO_DOC }),
  },
  {
    title: 'Term',
    description: 'A term: always exactly these five fields, in this order.',
    additionalProperties: false,
    examples: [EXAMPLE_TERM],
  },
);

export const TermList = Type.Array(TermSchema, {
  title: 'TermList',
  description: 'The matching terms, in creation order unless `sort` or `q` says otherwise.',
  examples: [[EXAMPLE_TERM]],
});

export const BulkItemResult = Type.Object(
  {
    index: Type.Integer({ minimum: 0, description: 'Zero-based position of the item.' }),
    status: Type.Unsafe<'created' | 'error'>({ type: 'string', enum: ['created', 'error'] }),
    id: Type.Optional(TermId),
    detail: Type.Optional(Type.String({ description: 'Why the item was rejected.' })),
  },
  {
    title: 'BulkItemResult',
    description: '`created` with the `id`, or `error` with the `detail`.',
    examples: [
      { index: 0, status: 'created', id: 42 },
      { index: 1, status: 'error', detail: 'Term with ID 7 already exists.' },
    ],
  },
);
export type BulkItemResult = Static<typeof BulkItemResult>;

export const BulkResults = Type.Array(BulkItemResult, {
  title: 'BulkResults',
  description: 'Exactly one result per request item, in request order.',
  examples: [
    [
      { index: 0, status: 'created', id: 42 },
      { index: 1, status: 'error', detail: 'Term with ID 7 already exists.' },
    ],
  ],
});

export const TermIdParams = Type.Object({ id: TermId });

export const BulkQuery = Type.Object({
  dry_run: Type.Optional(
    Type.Unsafe<'true' | 'false'>({
      type: 'string',
      enum: ['true', 'false'],
      description:
        '`true`: judge every item exactly as an import would, answer the same results, and store nothing.',
    }),
  ),
});

export const TermQuery = Type.Object({
  category: Type.Optional(CategorySchema),
  search: Type.Optional(
    Type.String({
      maxLength: MAX_SEARCH_LENGTH,
      description:
        'Case-insensitive (Unicode case folding) literal substring of the term name. Empty means no filter.',
    }),
  ),
  sort: Type.Optional(
    Type.Unsafe<SortKey>({
      type: 'string',
      enum: [...SORT_KEYS],
      description:
        'Order of the list: `term` (by name, case-insensitive, Unicode case folding), `id`, or either reversed with a leading `-`; ties in creation order. Creation order when absent.',
    }),
  ),
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_PAGE_SIZE,
      description: `Return at most this many terms (1-${MAX_PAGE_SIZE}). With it the response carries \`X-Total-Count\` and a \`Link\` header (\`next\`, \`prev\`). Without it, every matching term.`,
    }),
  ),
  offset: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'Skip this many matching terms first (default 0).',
    }),
  ),
  q: Type.Optional(
    Type.String({
      maxLength: MAX_SEARCH_LENGTH,
      description:
        'Words to find in names and definitions, ranked best first (see the API guide): case- and accent-insensitive, the last word also as a prefix, typo-tolerant (one edit in a word of 5-8 letters, two from 9). Every word must match. With `sort`, the matches in that order instead. Empty or blank: no filter.',
      examples: ['kubernetes', 'cache inval'],
    }),
  ),
  from: Type.Optional(
    Type.String({
      maxLength: MAX_TERM_LENGTH,
      description:
        'A place in the alphabet, with `sort=term` or `sort=-term` only: `sort=term` lists the terms whose name sorts at or after it (compared as `sort=term` orders: case-folded, by code point), `sort=-term` those before it, backwards. For an A-Z index: `sort=term&from=m` starts at M. `offset`, `X-Total-Count` and `Link` count from there.',
      examples: ['m'],
    }),
  ),
});
export type TermQuery = Static<typeof TermQuery>;

/** PATCH: a JSON merge patch (RFC 7396) of the term; the merged term is validated whole. */
export const TermPatch = Type.Object(
  {
    term: Type.Optional(Type.String()),
    definition: Type.Optional(Type.String()),
    category: Type.Optional(CategorySchema),
    see_also: Type.Optional(
      Type.Unsafe<number[] | null>({
        type: ['array', 'null'],
        items: { type: 'integer' },
        description: 'Replaces the list; null clears it.',
      }),
    ),
  },
  {
    title: 'TermPatch',
    description:
      'The members to change; a member set to null is removed (for `see_also`: cleared). The merged term is validated as POST /terms validates a term.',
    examples: [
      { definition: 'Doing it twice has the effect of doing it once.' },
      { see_also: null },
    ],
  },
);

export const RestoreRequest = Type.Object(
  {
    revision: Type.Integer({
      minimum: -MAX_ID,
      maximum: MAX_ID,
      description: "A `revision` from the term's history.",
      examples: [3],
    }),
  },
  { title: 'RestoreRequest', examples: [{ revision: 3 }] },
);
export type RestoreRequest = Static<typeof RestoreRequest>;

export const HISTORY_ACTIONS = ['created', 'updated', 'deleted', 'restored'] as const;

export const HistoryEntrySchema = Type.Object(
  {
    revision: Type.Integer({ description: 'Numbers the change; grows with every change.' }),
    action: Type.Unsafe<(typeof HISTORY_ACTIONS)[number]>({
      type: 'string',
      enum: [...HISTORY_ACTIONS],
    }),
    at: Type.String({ format: 'date-time', description: 'When, RFC 3339 in UTC.' }),
    by: Type.Union([Type.String(), Type.Null()], {
      description: 'The name of the token that made the change; null while writes were open.',
    }),
    term: TermSchema,
  },
  {
    title: 'HistoryEntry',
    additionalProperties: false,
    examples: [
      {
        revision: 12,
        action: 'updated',
        at: '2026-11-22T10:15:30.123Z',
        by: 'ci',
        term: EXAMPLE_TERM,
      },
    ],
  },
);

export const HistoryList = Type.Array(HistoryEntrySchema, {
  title: 'History',
  examples: [
    [
      {
        revision: 12,
        action: 'updated',
        at: '2026-11-22T10:15:30.123Z',
        by: 'ci',
        term: EXAMPLE_TERM,
      },
      {
        revision: 3,
        action: 'created',
        at: '2026-11-20T08:00:00.000Z',
        by: null,
        term: { ...EXAMPLE_TERM, definition: 'Doing it twice is doing it once.' },
      },
    ],
  ],
  description:
    'Every change of the id, newest first; `term` is the state after the change (for `deleted`, the state deleted).',
});

/** `If-Match` on a change: the term's strong ETag as GET /terms/{id} sent it, or `*`. */
export const IfMatchHeaders = Type.Object({
  'if-match': Type.Optional(
    Type.String({
      description:
        'Apply the change only if the term still has this ETag (from GET /terms/{id}); otherwise 412.',
    }),
  ),
});

/** `If-None-Match` on a read: a tag from an earlier answer; 304 while it still matches. */
export const IfNoneMatchHeaders = Type.Object({
  'if-none-match': Type.Optional(
    Type.String({
      description:
        'The `ETag` of an earlier answer (or a list of them, or `*`): 304 Not Modified, with no body, while it still matches.',
    }),
  ),
});
