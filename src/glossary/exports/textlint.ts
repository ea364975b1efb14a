import type { FileFormat, TermSource } from './format.ts';
import { allTerms, avoidEntries, longestFirst } from './names.ts';

/**
 * A terms file for textlint-rule-terminology (its `terms` option): a JSON array of
 * `[pattern, replacement]` pairs, one per name to avoid, longest first. The rule reads each
 * pattern as a JavaScript regular expression (flags `igm`, no `u`) and wraps it in its own word
 * boundaries, whose `\b` never matches beside a name starting or ending with `<`, `+` or `-`;
 * a pattern that starts with a lookbehind is used as it is, so each one here brings its own:
 * not after, and not before, a word character. The replacement goes through
 * `String.prototype.replace`, so a `$` in a name is written `$$`.
 *
 * Only names to avoid: the rule cannot flag without a replacement, so an entry with no single
 * better name (see `avoidEntries`) is left out, and names and aliases are not turned into
 * exact-case rules (every lowercase "cache" would be reported for a term named "Cache").
 */

const JS_META = /[\\^$.*+?()[\]{}|/]/g;

export function textlintPattern(avoid: string): string {
  const body = avoid
    .split(' ')
    .map((word) => word.replace(JS_META, '\\$&'))
    .join('\\s+');
  return `(?<!\\w)${body}(?!\\w)`;
}

export const textlintFormat: FileFormat = {
  kind: 'file',
  name: 'textlint',
  description:
    'A terms file for textlint-rule-terminology: each name to avoid as a [pattern, name] pair.',
  mediaType: 'application/json',
  fileName: 'glossary-terms.json',
  async *render(source: TermSource): AsyncIterable<string> {
    const { substitutions } = avoidEntries(await allTerms(source));
    const pairs = longestFirst(substitutions, (swap) => swap.avoid).map((swap) =>
      JSON.stringify([textlintPattern(swap.avoid), swap.use.replaceAll('$', '$$$$')]),
    );
    yield pairs.length === 0 ? '[]\n' : `[\n  ${pairs.join(',\n  ')}\n]\n`;
  },
};
