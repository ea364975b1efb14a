import type { Term } from '../term.ts';

const CATEGORY_ORDER = ['frontend', 'backend', 'devops', 'docs-as-code'];
const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });
const LINK = /https?:\/\/[^\s<>"'`]+/g;
const TRAILING = /[.,;:!?)\]]+$/;

/**
 * A Markdown glossary for a docs-as-code site: one section per category (in the contract's
 * order), terms sorted by name, each with an explicit anchor `term-{id}` (stable whatever
 * the site's heading-slug rules) that the see-also links point to, its definition, then its
 * aliases ("Also called") and names to avoid ("Avoid") when it has any. All text from the
 * glossary is escaped, so a term can never turn into markup; an `http(s)://` address becomes
 * an autolink (`<...>`), which renders as the address itself. Sorting needs every term, so
 * this one takes the whole list. `outside` names the see-also terms that exist but are not in
 * `terms` (a filtered download): they read "(not in this download)", by name when it is known.
 */
export function toMarkdown(
  terms: readonly Term[],
  outside: ReadonlyMap<number, string | null> = new Map(),
): string {
  // A duplicated id (possible through POST /terms) resolves to its earliest term, as
  // GET /terms/{id} does; only that one carries the anchor.
  const byId = new Map<number, Term>();
  for (const term of terms) if (!byId.has(term.id)) byId.set(term.id, term);

  const lines = ['# Glossary', ''];
  const categories = [...new Set(terms.map((term) => term.category))].sort(
    (a, b) => rank(a) - rank(b) || collator.compare(a, b),
  );
  for (const category of categories) {
    lines.push(`## ${escapeInline(category)}`, '');
    const members = terms
      .filter((term) => term.category === category)
      .sort((a, b) => collator.compare(a.term, b.term) || a.id - b.id);
    for (const term of members) {
      const anchor = byId.get(term.id) === term ? `<a id="term-${term.id}"></a>` : '';
      lines.push(`### ${anchor}${escapeInline(term.term)}`, '');
      lines.push(...escapeBlock(term.definition), '');
      if (term.aliases && term.aliases.length > 0) {
        lines.push(`**Also called:** ${nameList(term.aliases)}`, '');
      }
      if (term.avoid && term.avoid.length > 0) {
        lines.push(`**Avoid:** ${nameList(term.avoid)}`, '');
      }
      if (term.see_also.length > 0) {
        const links = term.see_also.map((id) => {
          const related = byId.get(id);
          if (related) return `[${escapeInline(related.term)}](#term-${id})`;
          if (!outside.has(id)) return `ID ${id} (not in this glossary)`;
          return `${escapeInline(outside.get(id) ?? `ID ${id}`)} (not in this download)`;
        });
        lines.push(`See also: ${links.join(', ')}`, '');
      }
    }
  }
  if (terms.length === 0) lines.push('The glossary is empty.', '');
  return `${lines.join('\n').trimEnd()}\n`;
}

/** Names, escaped, separated by commas (by semicolons when a name holds a comma). */
function nameList(names: readonly string[]): string {
  const separator = names.some((name) => name.includes(',')) ? '; ' : ', ';
  return names.map(escapeInline).join(separator);
}

function rank(category: string): number {
  const index = CATEGORY_ORDER.indexOf(category);
  return index === -1 ? CATEGORY_ORDER.length : index;
}

/** Backslash-escapes every character Markdown could read as inline markup or HTML. */
function escapeText(text: string): string {
  return text.replace(/[\\`*_{}[\]()<>#+!|~&]/g, '\\$&');
}

/** Escaped text, its addresses as autolinks (left unescaped: inside `<>` nothing is markup). */
function escapeInline(text: string): string {
  let out = '';
  let at = 0;
  for (const match of text.matchAll(LINK)) {
    const start = match.index ?? 0;
    const address = match[0].replace(TRAILING, '');
    out += `${escapeText(text.slice(at, start))}<${address}>`;
    at = start + address.length;
  }
  return (out + escapeText(text.slice(at))).replace(/\s+/g, ' ');
}

/**
 * A definition keeps its line breaks; a line must not start a list (`1.`, `1)`, `-`, `+`,
 * `*`), a heading, a quote or a setext underline (`=`, `-`), nor be read as code (indent).
 */
function escapeBlock(text: string): string[] {
  return text.split(/\r?\n/).map((line) =>
    escapeInline(line.trimStart())
      .replace(/^(\d+)([.)])/, '$1\\$2')
      .replace(/^([-=>])/, '\\$1'),
  );
}
