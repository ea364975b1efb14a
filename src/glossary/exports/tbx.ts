import type { Term } from '../term.ts';
import type { FileFormat, TermSource } from './format.ts';
import { oneLine, textLines } from './names.ts';

/**
 * TBX-Basic in TBX v3 (ISO 30042:2019, DCA style), for Crowdin, Phrase and other CAT tools: a
 * `conceptEntry` per term, its category as `subjectField`, its see-also as `crossReference`s
 * (to terms in the file only), and one English `langSec` holding the definition and a `termSec`
 * per name: the name preferred, each alias admitted (`termType` acronym or abbreviation where
 * the alias is clearly one, see `termType`), each name to avoid deprecated.
 *
 * The file is written in two passes over the terms: the first learns which ids (and their
 * names) the file holds, the second writes one chunk of entries at a time. What both TBX
 * versions share (XML text, ids, term types) is exported here for `tbx-v2.ts`.
 */

/**
 * Characters XML 1.0 does not allow, or that a string may hold but UTF-8 cannot: U+FFFE, U+FFFF
 * and a lone surrogate, each written as U+FFFD. (Controls never get here: names and definitions
 * go through `oneLine` or `textLines` first.)
 */
const NOT_XML =
  /[\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Text or an attribute value as XML reads it back: `& < > " '` escaped, non-characters replaced. */
export function xmlEscape(text: string): string {
  return text
    .replace(NOT_XML, '\ufffd')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;');
}

/** A name, alias or name to avoid: on one line (controls and line separators as spaces), escaped. */
export function xmlName(text: string): string {
  return xmlEscape(oneLine(text));
}

/**
 * A definition: its line breaks (CR, CRLF, VT, FF, NEL, U+2028, ...) as line feeds, its other
 * controls (tab, NUL, DEL, C1) as spaces, trailing spaces of each line and blank lines at either
 * end left out, escaped.
 */
export function xmlDefinition(text: string): string {
  return xmlEscape(textLines(text).join('\n').trim());
}

/**
 * The entry id of a term's id, an XML `ID` (an NCName: no leading digit or `-`): `term-42`, and
 * `term-minus-7` for a negative id.
 */
export function entryId(id: number): string {
  return id < 0 ? `term-minus-${-id}` : `term-${id}`;
}

/**
 * Gives every term of the file a unique entry id in creation order: the earliest term with an id
 * gets `entryId(id)`, the n-th later term with the same id `entryId(id)-n` (n from 2), which no
 * other id can produce. Also keeps each owner's name, the text of a cross reference to it.
 */
export class EntryIds {
  private readonly seen = new Map<number, number>();
  readonly names = new Map<number, string>();

  /** First pass: learn a term. */
  learn(term: Term): void {
    if (!this.names.has(term.id)) this.names.set(term.id, oneLine(term.term));
  }

  /** Second pass, in the same order: the term's entry id. */
  next(term: Term): string {
    const n = (this.seen.get(term.id) ?? 0) + 1;
    this.seen.set(term.id, n);
    return n === 1 ? entryId(term.id) : `${entryId(term.id)}-${n}`;
  }

  /** The see-also ids that are in the file, each once, in the term's order. */
  targets(term: Term): number[] {
    return [...new Set(term.see_also)].filter((id) => this.names.has(id));
  }
}

/** Reads the source once to learn its ids; whether it had any term. */
export async function learnIds(source: TermSource): Promise<{ ids: EntryIds; empty: boolean }> {
  const ids = new EntryIds();
  let empty = true;
  for await (const chunk of source()) {
    for (const term of chunk) {
      ids.learn(term);
      empty = false;
    }
  }
  return { ids, empty };
}

/**
 * The TBX `termType` of an alias, only where it is clearly one (else none), and only for an
 * alias shorter than the name:
 * - `abbreviation`: one word that is a numeronym (a letter, a number, letters: `K8s`, `i18n`,
 *   `I18N`, `a11y`) or ends with a full stop (`approx.`, `e.g.`);
 * - `acronym`: otherwise capital letters and digits only, at least two characters, at least one
 *   letter (`API`, `CDN`, `HTTP2`).
 */
export function termType(alias: string, name: string): 'acronym' | 'abbreviation' | undefined {
  const text = oneLine(alias);
  if (text.length >= oneLine(name).length) return undefined;
  if (/^\p{L}\p{Nd}+\p{L}+$/u.test(text) || /^[^\s.]\S*\.$/u.test(text)) return 'abbreviation';
  if (/^(?=.*\p{Lu})[\p{Lu}\p{Nd}]{2,}$/u.test(text)) return 'acronym';
  return undefined;
}

/** A term's names in the order they are written, each once: the name, aliases, names to avoid. */
export function namesToWrite(
  term: Term,
): { text: string; status: 'preferred' | 'admitted' | 'deprecated'; type?: string }[] {
  const seen = new Set<string>();
  const out: { text: string; status: 'preferred' | 'admitted' | 'deprecated'; type?: string }[] =
    [];
  const add = (raw: string, status: 'preferred' | 'admitted' | 'deprecated', type?: string) => {
    const text = oneLine(raw);
    if (text === '' || seen.has(text)) return;
    seen.add(text);
    out.push(type ? { text, status, type } : { text, status });
  };
  add(term.term, 'preferred');
  for (const alias of term.aliases ?? []) add(alias, 'admitted', termType(alias, term.term));
  for (const entry of term.avoid ?? []) add(entry, 'deprecated');
  return out;
}

const XML_MODELS = [
  '<?xml-model href="https://raw.githubusercontent.com/LTAC-Global/TBX-Basic_dialect/master/DCA/TBXcoreStructV03_TBX-Basic_integrated.rng" type="application/xml" schematypens="http://relaxng.org/ns/structure/1.0"?>',
  '<?xml-model href="https://raw.githubusercontent.com/LTAC-Global/TBX-Basic_dialect/master/DCA/TBX-Basic_DCA.sch" type="application/xml" schematypens="http://purl.oclc.org/dsdl/schematron"?>',
];

const SOURCE = 'Written by glossary export --format tbx; edit the glossary, not this file.';

function conceptEntry(term: Term, ids: EntryIds): string {
  const out = [
    `    <conceptEntry id="${ids.next(term)}">`,
    `      <descrip type="subjectField">${xmlEscape(term.category)}</descrip>`,
  ];
  for (const id of ids.targets(term)) {
    out.push(
      `      <ref type="crossReference" target="${entryId(id)}">${xmlEscape(ids.names.get(id) ?? '')}</ref>`,
    );
  }
  out.push(
    '      <langSec xml:lang="en">',
    `        <descrip type="definition">${xmlDefinition(term.definition)}</descrip>`,
  );
  for (const name of namesToWrite(term)) {
    out.push(
      '        <termSec>',
      `          <term>${xmlEscape(name.text)}</term>`,
      `          <termNote type="administrativeStatus">${name.status}Term-admn-sts</termNote>`,
    );
    if (name.type) out.push(`          <termNote type="termType">${name.type}</termNote>`);
    out.push('        </termSec>');
  }
  out.push('      </langSec>', '    </conceptEntry>');
  return out.map((line) => `  ${line}\n`).join('');
}

export const tbxFormat: FileFormat = {
  kind: 'file',
  name: 'tbx',
  description:
    'TBX-Basic (TBX v3, ISO 30042:2019) for CAT tools: names preferred, aliases admitted, names to avoid deprecated.',
  mediaType: 'application/x-tbx; charset=utf-8',
  fileName: 'glossary.tbx',
  async *render(source: TermSource): AsyncIterable<string> {
    const { ids, empty } = await learnIds(source);
    yield [
      '<?xml version="1.0" encoding="UTF-8"?>',
      ...XML_MODELS,
      '<tbx type="TBX-Basic" style="dca" xml:lang="en" xmlns="urn:iso:std:iso:30042:ed-2">',
      '  <tbxHeader>',
      '    <fileDesc>',
      '      <sourceDesc>',
      `        <p>${SOURCE}</p>`,
      '      </sourceDesc>',
      '    </fileDesc>',
      '  </tbxHeader>',
      '',
    ].join('\n');
    // The core structure has no empty body: a glossary without terms is a text without one.
    if (empty) {
      yield '  <text/>\n</tbx>\n';
      return;
    }
    yield '  <text>\n    <body>\n';
    for await (const chunk of source()) yield chunk.map((term) => conceptEntry(term, ids)).join('');
    yield '    </body>\n  </text>\n</tbx>\n';
  },
};
