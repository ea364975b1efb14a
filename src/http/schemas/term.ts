import { type Static, Type } from 'typebox';
import {
  MAX_DEFINITION_LENGTH,
  MAX_HISTORY_PAGE,
  MAX_ID,
  MAX_OTHER_NAMES,
  MAX_PAGE_SIZE,
  MAX_SEARCH_LENGTH,
  MAX_SEE_ALSO,
  MAX_TERM_LENGTH,
  SORT_KEYS,
  type SortKey,
  VISIBLE_CHARACTER,
} from '../../glossary/term.ts';
import { DISTINCT_NAMES } from '../validation.ts';
import {
  ALIASES_DOC,
  AVOID_DOC,
  CategorySchema,
  EXAMPLE_NAMED_TERM,
  EXAMPLE_TERM,
  SEE_ALSO_DOC,
  TermId,
} from '../wire.ts';

/**
 * The request schemas: one definition drives request validation (see `validation.ts`), the
 * TypeScript types and the OpenAPI document. What the service answers is in `../wire.ts`.
 */

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

const SeeAlsoIds = Type.Array(TermId, { maxItems: MAX_SEE_ALSO });

/** The fields a client writes, with their limits: POST, PUT, each bulk item and PATCH alike. */
const TermName = text(MAX_TERM_LENGTH, 'Canonical name of the technical concept.');
const Definition = text(MAX_DEFINITION_LENGTH, 'Concise technical explanation of the term.');
function nullableSeeAlso(description: string) {
  return Type.Unsafe<number[] | null>({ ...SeeAlsoIds, type: ['array', 'null'], description });
}
/** Each entry of `aliases` and `avoid` is a name, validated as `term` is. */
const OtherName = text(MAX_TERM_LENGTH, 'A name, with the limits of `term`.');
function nullableNames(description: string) {
  return Type.Unsafe<string[] | null>({
    type: ['array', 'null'],
    items: OtherName,
    maxItems: MAX_OTHER_NAMES,
    description,
  });
}
const NAMES_RULE = `At most ${MAX_OTHER_NAMES} entries, each validated as \`term\`. No name twice in a term (compared case- and accent-insensitively): not an entry twice, not in both lists, not the term's own name.`;
const NAMES_ACROSS =
  "Across the glossary, a name to avoid may not be any other term's name or alias, nor a name or alias another term's name to avoid: 422 naming that term.";

/** A term as a client sends it: `see_also` may be omitted or null (stored as `[]`). */
export const TermInput = Type.Object(
  {
    id: TermId,
    term: TermName,
    definition: Definition,
    category: CategorySchema,
    see_also: Type.Optional(nullableSeeAlso(`${SEE_ALSO_DOC} Omitted or null means [].`)),
    aliases: Type.Optional(
      nullableNames(`${ALIASES_DOC} ${NAMES_RULE} Omitted, null or [] means none.`),
    ),
    avoid: Type.Optional(
      nullableNames(`${AVOID_DOC} ${NAMES_RULE} Omitted, null or [] means none.`),
    ),
  },
  {
    title: 'TermInput',
    description: `A term to register. Unknown fields are ignored. ${NAMES_ACROSS}`,
    examples: [EXAMPLE_TERM, EXAMPLE_NAMED_TERM],
    // The rule within one term, which JSON Schema cannot say (validation.ts checks it).
    [DISTINCT_NAMES]: true,
  },
);
export type TermInput = Static<typeof TermInput>;

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
      // With it, the examples of `q` and `from` make one valid request together.
      examples: ['term'],
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
  links_to: Type.Optional(
    Type.Integer({
      minimum: -MAX_ID,
      maximum: MAX_ID,
      description:
        'Only the terms that link to this id: whose `see_also` holds it (the terms that say "see also" this one), whether or not a term has the id. Combines with every other filter, `sort`, `limit` and `offset`.',
      examples: [42],
    }),
  ),
});
export type TermQuery = Static<typeof TermQuery>;

/**
 * PATCH: a JSON merge patch (RFC 7396) of the term. The service validates the merged term, so
 * each member given has the limits of that field in a term; `null` removes a member, which only
 * `see_also` may lose (it becomes `[]`): a term without a name, definition or category, or a
 * term moved to another id, is refused.
 */
export const TermPatch = Type.Object(
  {
    id: Type.Optional(TermId),
    term: Type.Optional(TermName),
    definition: Type.Optional(Definition),
    category: Type.Optional(CategorySchema),
    see_also: Type.Optional(nullableSeeAlso(`${SEE_ALSO_DOC} Replaces the list; null clears it.`)),
    aliases: Type.Optional(
      nullableNames(`${ALIASES_DOC} ${NAMES_RULE} Replaces the list; null or [] clears it.`),
    ),
    avoid: Type.Optional(
      nullableNames(`${AVOID_DOC} ${NAMES_RULE} Replaces the list; null or [] clears it.`),
    ),
  },
  {
    title: 'TermPatch',
    description: `The members to change, each with the limits it has in a term. \`see_also: null\`, \`aliases: null\` and \`avoid: null\` clear that list; no other member may be null (a term needs its name, definition and category). An \`id\`, if given, must be the id in the path. Unknown members are ignored. The merged term is judged as a whole: its names must stay distinct. ${NAMES_ACROSS}`,
    examples: [
      { definition: 'Doing it twice has the effect of doing it once.' },
      { see_also: null },
      { aliases: ['K8s'], avoid: ['Kubernates'] },
      { avoid: null },
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

/** A page of a term's history: newest first, bounded, with a cursor that holds under edits. */
export const HistoryQuery = Type.Object({
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_HISTORY_PAGE,
      description: `Return at most this many entries (1-${MAX_HISTORY_PAGE}; ${MAX_HISTORY_PAGE} when absent).`,
    }),
  ),
  offset: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'Skip this many entries first (default 0).',
    }),
  ),
  before: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
      description:
        'Only the entries older than this revision: the cursor the `next` link carries (the last revision of the page before), so following it neither repeats nor skips an entry while the term is being changed.',
      examples: [12],
    }),
  ),
});
export type HistoryQuery = Static<typeof HistoryQuery>;

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
