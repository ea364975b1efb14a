import { type Static, Type } from 'typebox';
import { CHANGE_TYPES } from '../glossary/changes.ts';
import { CATEGORIES, type Category, MAX_ID, MAX_OTHER_NAMES } from '../glossary/term.ts';

/**
 * The wire: the shapes of what the service answers, as its clients read them. One TypeBox
 * schema each drives the response serialization, the OpenAPI document and the TypeScript type;
 * the CLI and the page import the types only (`import type`), so no server code reaches them
 * (the dependency-cruiser rule `clients-import-the-wire-types-only` holds it). This module
 * imports nothing of the server: the page's own tsconfig checks it too.
 */

/** The term every example in the document shows. */
export const EXAMPLE_TERM = {
  id: 42,
  term: 'Idempotency',
  definition: 'Repeating a request has the same effect as sending it once.',
  category: 'backend',
  see_also: [7],
};

/** A term with other names: an abbreviation to accept, a misspelling to avoid. */
export const EXAMPLE_NAMED_TERM = {
  id: 12,
  term: 'Kubernetes',
  definition: 'An open-source system that runs and scales containers across a cluster.',
  category: 'devops',
  see_also: [],
  aliases: ['K8s'],
  avoid: ['Kubernates'],
};

export const ALIASES_DOC = 'Other accepted names of the term: abbreviations, acronyms, synonyms.';
export const AVOID_DOC =
  'Names a writer should not use for this term: old, wrong or deprecated forms.';

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

export const SEE_ALSO_DOC = 'IDs of related terms (one-way; they need not exist).';
/** A term's other names as the service answers them: present only with an entry. */
const answeredNames = (description: string) =>
  Type.Optional(
    Type.Array(Type.String(), {
      minItems: 1,
      maxItems: MAX_OTHER_NAMES,
      description: `${description} Present only when the term has one.`,
    }),
  );
/**
 * A term as the service returns it: the five original fields, in this order, then `aliases`
 * and `avoid` only when they have an entry, so a term without them answers exactly as before.
 */
export const TermSchema = Type.Object(
  {
    id: TermId,
    term: Type.String(),
    definition: Type.String(),
    category: CategorySchema,
    see_also: Type.Array(TermId, { description: SEE_ALSO_DOC }),
    aliases: answeredNames(ALIASES_DOC),
    avoid: answeredNames(AVOID_DOC),
  },
  {
    title: 'Term',
    description:
      'A term: the five fields `id`, `term`, `definition`, `category`, `see_also`, in this order, then `aliases` and `avoid` only when the term has other names (an empty list is never sent).',
    additionalProperties: false,
    examples: [EXAMPLE_TERM, EXAMPLE_NAMED_TERM],
  },
);

export const TermList = Type.Array(TermSchema, {
  title: 'TermList',
  description: 'The matching terms, in creation order unless `sort` or `q` says otherwise.',
  examples: [[EXAMPLE_TERM, EXAMPLE_NAMED_TERM]],
});

const bulkIndex = Type.Integer({ minimum: 0, description: 'Zero-based position of the item.' });
const CREATED_EXAMPLE = { index: 0, status: 'created' as const, id: 42 };
const ERROR_EXAMPLE = {
  index: 1,
  status: 'error' as const,
  detail: 'Term with ID 7 already exists.',
};

export const BulkItemCreated = Type.Object(
  { index: bulkIndex, status: Type.Literal('created'), id: TermId },
  {
    title: 'BulkItemCreated',
    description: 'The item is stored (with `dry_run=true`: would be) under this `id`.',
    additionalProperties: false,
    examples: [CREATED_EXAMPLE],
  },
);

export const BulkItemError = Type.Object(
  {
    index: bulkIndex,
    status: Type.Literal('error'),
    detail: Type.String({ description: 'Why the item was rejected.' }),
  },
  {
    title: 'BulkItemError',
    description: 'The item is not stored, for the reason in `detail`.',
    additionalProperties: false,
    examples: [ERROR_EXAMPLE],
  },
);

/**
 * One item's result, keyed on `status`, so that a generated client knows `id` is there after
 * `created` and `detail` after `error`. The mapping names the components the document lists
 * (see openapi-document.ts: a titled schema is a component of that name).
 */
export const BulkItemResult = Type.Unsafe<
  Static<typeof BulkItemCreated> | Static<typeof BulkItemError>
>({
  title: 'BulkItemResult',
  description: '`created` with the `id`, or `error` with the `detail`.',
  oneOf: [BulkItemCreated, BulkItemError],
  discriminator: {
    propertyName: 'status',
    mapping: {
      created: '#/components/schemas/BulkItemCreated',
      error: '#/components/schemas/BulkItemError',
    },
  },
  examples: [CREATED_EXAMPLE, ERROR_EXAMPLE],
});
export type BulkItemResult = Static<typeof BulkItemResult>;

export const BulkResults = Type.Array(BulkItemResult, {
  title: 'BulkResults',
  description: 'Exactly one result per request item, in request order.',
  examples: [[CREATED_EXAMPLE, ERROR_EXAMPLE]],
});

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

const EXAMPLE_CHANGE = {
  revision: 12,
  type: 'term.updated',
  id: EXAMPLE_TERM.id,
  at: '2026-11-22T10:15:30.123Z',
  by: 'ci',
  term: EXAMPLE_TERM,
};

export const CHANGE_PAGE_EXAMPLE = { changes: [EXAMPLE_CHANGE], next: 12 };

export const ChangeSchema = Type.Object(
  {
    revision: Type.Integer({
      description: 'Numbers the change glossary-wide; the `id:` of its event.',
    }),
    type: Type.Unsafe<(typeof CHANGE_TYPES)[number]>({
      type: 'string',
      enum: [...CHANGE_TYPES],
      description: "What happened: the history entry's action, `term.` before it.",
    }),
    id: Type.Integer({ description: "The term's id." }),
    at: Type.String({ format: 'date-time', description: 'When, RFC 3339 in UTC.' }),
    by: Type.Union([Type.String(), Type.Null()], {
      description: 'The name of the token that made the change; null while writes were open.',
    }),
    term: TermSchema,
  },
  {
    title: 'Change',
    additionalProperties: false,
    description:
      "One change of the glossary: the same facts as the entry of the term's history with this revision; `term` is the state after it (for `term.deleted`, the state deleted).",
    examples: [EXAMPLE_CHANGE],
  },
);

export const ChangePage = Type.Object(
  {
    changes: Type.Array(ChangeSchema, {
      description: 'The changes above `since`, oldest first.',
    }),
    next: Type.Integer({
      description:
        'Ask again with `since` set to this: the revision of the last change given, or `since` when none was.',
    }),
  },
  {
    title: 'ChangePage',
    additionalProperties: false,
    examples: [CHANGE_PAGE_EXAMPLE],
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
    'A page of the changes of the id, newest first; `term` is the state after the change (for `deleted`, the state deleted).',
});

/** One validation fault, in the FastAPI / Pydantic v1 vocabulary the contract uses. */
export const ValidationFault = Type.Object(
  {
    loc: Type.Array(Type.Union([Type.String(), Type.Integer()]), {
      description: 'Where the fault is: "body", "query" or "path", then the field (and index).',
    }),
    msg: Type.String(),
    type: Type.String({ examples: ['type_error.enum', 'value_error.missing'] }),
    input: Type.Optional(Type.Unknown({ description: 'The offending value, when there is one.' })),
  },
  { title: 'ValidationFault' },
);

export const ValidationErrorBody = Type.Object(
  { detail: Type.Array(ValidationFault) },
  {
    title: 'ValidationError',
    description: 'Validation failed: every fault is reported.',
    examples: [
      {
        detail: [
          {
            loc: ['body', 'category'],
            msg: "value is not a valid enumeration member; permitted: 'frontend', 'backend', 'devops', 'docs-as-code'",
            type: 'type_error.enum',
            input: 'web',
          },
        ],
      },
      {
        detail: [
          {
            loc: ['body', 'avoid', 0],
            msg: "'Webhook' is the name of term 42.",
            type: 'value_error.name.conflict',
            input: 'Webhook',
          },
        ],
      },
    ],
  },
);

export const MessageBody = Type.Object(
  { detail: Type.String({ description: 'One sentence saying what went wrong.' }) },
  {
    title: 'Message',
    description:
      'Every error but a validation failure. Each answer lists the sentences it may carry, from the one table of them (src/http/errors.ts).',
  },
);

/** One change of a term as GET /terms/{id}/history answers it (`at` is RFC 3339 text). */
export type HistoryEntry = Static<typeof HistoryEntrySchema>;
export type ValidationFault = Static<typeof ValidationFault>;
/** A 422: every fault of the request. */
export type ValidationErrorBody = Static<typeof ValidationErrorBody>;
/** Every other error: one sentence. */
export type MessageBody = Static<typeof MessageBody>;
