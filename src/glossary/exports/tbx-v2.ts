import type { Term } from '../term.ts';
import type { FileFormat, TermSource } from './format.ts';
import { type EntryIds, entryId, learnIds, namesToWrite, xmlDefinition, xmlEscape } from './tbx.ts';

/**
 * TBX v2 (ISO 30042:2008), the `martif` document Translate Toolkit and so Weblate read: a
 * `termEntry` per term with the same content as the v3 export (`tbx.ts`) in v2's elements:
 * `langSet` for `langSec`, a `tig` for each `termSec`. Translate Toolkit takes a `termEntry`'s
 * first term as the unit's source: the name comes first.
 */

const SOURCE = 'Written by glossary export --format tbx-v2; edit the glossary, not this file.';

function termEntry(term: Term, ids: EntryIds): string {
  const out = [
    `<termEntry id="${ids.next(term)}">`,
    `  <descrip type="subjectField">${xmlEscape(term.category)}</descrip>`,
  ];
  for (const id of ids.targets(term)) {
    out.push(
      `  <ref type="crossReference" target="${entryId(id)}">${xmlEscape(ids.names.get(id) ?? '')}</ref>`,
    );
  }
  out.push(
    '  <langSet xml:lang="en">',
    `    <descrip type="definition">${xmlDefinition(term.definition)}</descrip>`,
  );
  for (const name of namesToWrite(term)) {
    out.push(
      '    <tig>',
      `      <term>${xmlEscape(name.text)}</term>`,
      `      <termNote type="administrativeStatus">${name.status}Term-admn-sts</termNote>`,
    );
    if (name.type) out.push(`      <termNote type="termType">${name.type}</termNote>`);
    out.push('    </tig>');
  }
  out.push('  </langSet>', '</termEntry>');
  return out.map((line) => `      ${line}\n`).join('');
}

export const tbxV2Format: FileFormat = {
  kind: 'file',
  name: 'tbx-v2',
  description:
    'TBX v2 (martif, ISO 30042:2008) for Weblate and Translate Toolkit: the same entries as tbx.',
  mediaType: 'application/x-tbx; charset=utf-8',
  fileName: 'glossary-v2.tbx',
  async *render(source: TermSource): AsyncIterable<string> {
    const { ids } = await learnIds(source);
    yield [
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<martif type="TBX" xml:lang="en">',
      '  <martifHeader>',
      '    <fileDesc>',
      '      <sourceDesc>',
      `        <p>${SOURCE}</p>`,
      '      </sourceDesc>',
      '    </fileDesc>',
      '  </martifHeader>',
      '  <text>',
      '    <body>',
      '',
    ].join('\n');
    for await (const chunk of source()) yield chunk.map((term) => termEntry(term, ids)).join('');
    yield '    </body>\n  </text>\n</martif>\n';
  },
};
