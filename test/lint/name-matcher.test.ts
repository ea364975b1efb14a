import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { casedAs, pluralOf } from '../../src/lint/english.ts';
import { HIDDEN } from '../../src/lint/markup/mask.ts';
import { type GlossaryTerm, NameMatcher } from '../../src/lint/name-matcher.ts';

/** [found text, replacement, term] of each match, the form tests read best. */
function found(terms: GlossaryTerm[], text: string): [string, string, number][] {
  return new NameMatcher(terms)
    .find(text)
    .map((match) => [text.slice(match.start, match.end), match.use, match.term]);
}

const WEBHOOK: GlossaryTerm = { id: 42, term: 'webhook', avoid: ['web hook', 'call-back'] };

describe('the English of names', () => {
  test('regular plurals of the last word; none for a name ending in a sign or digit', () => {
    assert.equal(pluralOf('web hook'), 'web hooks');
    assert.equal(pluralOf('cache'), 'caches');
    assert.equal(pluralOf('proxy'), 'proxies');
    assert.equal(pluralOf('key'), 'keys');
    assert.equal(pluralOf('patch'), 'patches');
    assert.equal(pluralOf('box'), 'boxes');
    assert.equal(pluralOf('API'), 'APIs');
    assert.equal(pluralOf('C++'), undefined);
    assert.equal(pluralOf('OAuth 2'), undefined);
  });

  test('a replacement keeps the capital the text had, and capitals throughout', () => {
    assert.equal(casedAs('webhook', 'Web hook', 'web hook'), 'Webhook');
    assert.equal(casedAs('webhook', 'web hook', 'web hook'), 'webhook');
    assert.equal(casedAs('webhook', 'WEB HOOK', 'web hook'), 'WEBHOOK');
    assert.equal(casedAs('GitHub', 'github', 'Github'), 'GitHub');
    assert.equal(casedAs('GitHub', 'GITHUB', 'Github'), 'GitHub');
    assert.equal(casedAs('élan', 'Ardour', 'ardour'), 'Élan');
    // An entry written with capitals: the text written so gets the name as it is.
    assert.equal(casedAs('résumé', 'CV', 'CV'), 'résumé');
    assert.equal(casedAs('pull request', 'Merge Request', 'Merge Request'), 'pull request');
  });
});

describe('NameMatcher', () => {
  test('finds whole words only, in any case, with the capital kept in the replacement', () => {
    assert.deepEqual(
      found([WEBHOOK], 'A Web hook, a web hook; webhooks; web hooked; cobweb hook.'),
      [
        ['Web hook', 'Webhook', 42],
        ['web hook', 'webhook', 42],
      ],
    );
  });

  test('a space in a name matches any run of white space, line breaks included', () => {
    assert.deepEqual(found([WEBHOOK], 'a web \n\t hook'), [['web \n\t hook', 'webhook', 42]]);
    assert.deepEqual(found([WEBHOOK], 'a web-hook, a webhook'), []);
  });

  test('plurals of a name to avoid are found and replaced by the plural of the name', () => {
    assert.deepEqual(
      found(
        [WEBHOOK, { id: 3, term: 'proxy', avoid: ['relay box'] }],
        'Web hooks and relay boxes and call-backs',
      ),
      [
        ['Web hooks', 'Webhooks', 42],
        ['relay boxes', 'proxies', 3],
        ['call-backs', 'webhooks', 42],
      ],
    );
  });

  test('the longest form wins, and a name or alias that contains a name to avoid is left alone', () => {
    const terms: GlossaryTerm[] = [
      WEBHOOK,
      { id: 7, term: 'web hook handler' },
      { id: 8, term: 'endpoint', aliases: ['web hook target URL'], avoid: ['web hook target'] },
    ];
    assert.deepEqual(
      found(terms, 'the web hook handler, the web hook target URL, the web hook target'),
      [['web hook target', 'endpoint', 8]],
    );
  });

  test('a hidden code unit ends a word and is never part of a match', () => {
    assert.deepEqual(
      found([WEBHOOK], `web${HIDDEN}hook web ${HIDDEN}hook ${HIDDEN}web hook${HIDDEN}`),
      [['web hook', 'webhook', 42]],
    );
  });

  test('names that begin or end with signs are found between words', () => {
    const terms: GlossaryTerm[] = [
      { id: 1, term: 'Kubernetes', avoid: ['=k8s'] },
      { id: 2, term: 'logical or', avoid: ['||'] },
      { id: 3, term: 'C++', avoid: ['CPP'] },
    ];
    assert.deepEqual(found(terms, 'use =k8s and a||b and || and cpp. Not x=k8s.'), [
      ['=k8s', 'Kubernetes', 1],
      ['||', 'logical or', 2],
      ['cpp', 'C++', 3],
    ]);
  });

  test('a name to avoid that differs from the name only in case is found in other cases only', () => {
    const terms: GlossaryTerm[] = [{ id: 9, term: 'GitHub', avoid: ['Github'] }];
    assert.deepEqual(found(terms, 'GitHub, Github, github'), [
      ['Github', 'GitHub', 9],
      ['github', 'GitHub', 9],
    ]);
  });

  test('two terms avoiding the same name: the first term (lowest id) is named', () => {
    const terms: GlossaryTerm[] = [
      { id: 20, term: 'sign-in', avoid: ['log on'] },
      { id: 10, term: 'log-in', avoid: ['log on'] },
    ];
    assert.deepEqual(found(terms, 'log on'), [['log on', 'log-in', 10]]);
  });

  test('letters beyond ASCII: accents and non-Latin scripts are words, compared by case', () => {
    const terms: GlossaryTerm[] = [
      { id: 1, term: 'résumé', avoid: ['CV'] },
      { id: 2, term: 'Straße', avoid: ['Strasse'] },
    ];
    assert.deepEqual(found(terms, 'Ein CV, eine STRASSE, éCV, CVé'), [
      ['CV', 'résumé', 1],
      ['STRASSE', 'Straße', 2],
    ]);
  });

  // The reference: for each form, a regular expression; at each word start, the longest form
  // that matches there wins. Slow and plain, which is the point.
  function reference(terms: GlossaryTerm[], text: string): [string, string, number][] {
    const forms: { re: RegExp; use?: string; written: string; term: number; rank: number }[] = [];
    const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/ +/g, '\\s+');
    for (const term of terms) {
      for (const name of [term.term, ...(term.aliases ?? [])]) {
        forms.push({
          re: new RegExp(`^(?:${escape(name)})(?![\\p{L}\\p{N}\\p{M}])`, 'iu'),
          written: name,
          term: term.id,
          rank: 2,
        });
      }
      for (const name of term.avoid ?? []) {
        forms.push({
          re: new RegExp(`^(?:${escape(name)})(?![\\p{L}\\p{N}\\p{M}])`, 'iu'),
          use: term.term,
          written: name,
          term: term.id,
          rank: 3,
        });
      }
    }
    const out: [string, string, number][] = [];
    let i = 0;
    while (i < text.length) {
      const startsWord =
        /[\p{L}\p{N}\p{M}]/u.test(text[i] as string) &&
        (i === 0 || !/[\p{L}\p{N}\p{M}]/u.test(text[i - 1] as string));
      if (!startsWord) {
        i++;
        continue;
      }
      let best: { length: number; form: (typeof forms)[number] } | undefined;
      for (const form of forms) {
        const m = form.re.exec(text.slice(i));
        if (!m) continue;
        const length = m[0].length;
        if (
          !best ||
          length > best.length ||
          (length === best.length &&
            (form.rank > best.form.rank ||
              (form.rank === best.form.rank && form.term < best.form.term)))
        ) {
          best = { length, form };
        }
      }
      if (best) {
        const written = text.slice(i, i + best.length);
        if (best.form.use !== undefined) {
          const use = casedAs(best.form.use, written, best.form.written);
          if (use !== written) out.push([written, use, best.form.term]);
        }
        i += best.length;
      } else {
        while (i < text.length && /[\p{L}\p{N}\p{M}]/u.test(text[i] as string)) i++;
      }
    }
    return out;
  }

  test('finds what a regular expression per name finds, for any glossary and text', () => {
    const word = fc.constantFrom(
      'web',
      'hook',
      'Hook',
      'cache',
      'proxy',
      'log',
      'on',
      'in',
      'é',
      'x1',
    );
    const name = fc.array(word, { minLength: 1, maxLength: 3 }).map((words) => words.join(' '));
    const terms = fc
      .uniqueArray(fc.record({ term: name, avoid: fc.array(name, { maxLength: 3 }) }), {
        maxLength: 6,
        selector: (t) => t.term.toLowerCase(),
      })
      .map((list) =>
        list.map((t, index) => ({
          id: index + 1,
          term: t.term,
          // A term's own name is never one of its names to avoid (the service refuses it).
          avoid: t.avoid.filter((a) => a.toLowerCase() !== t.term.toLowerCase()),
        })),
      );
    const text = fc
      .array(fc.oneof(word, fc.constantFrom(' ', '  ', '\n', ', ', '.', HIDDEN, '-')), {
        maxLength: 40,
      })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(terms, text, (glossary, prose) => {
        // Plurals are the matcher's own addition: compare with a text whose words are never plural.
        assert.deepEqual(found(glossary, prose), reference(glossary, prose));
      }),
      { numRuns: 500 },
    );
  });
});
