import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { csv, namesCell, namesFromCell } from '../../src/glossary/exports/csv.ts';

/** The `aliases` and `avoid` cells of the CSV files: entries separated by ` | `. */
describe('CSV cells of other names', () => {
  test('entries are joined by " | ", each neutralised against formulas on its own', () => {
    assert.equal(namesCell(['K8s', 'kube']), 'K8s | kube');
    assert.equal(namesCell(['=SUM(1)', "'x", '@a']), "'=SUM(1) | ''x | '@a");
    assert.equal(namesCell(undefined), '');
    assert.equal(namesCell([]), '');
  });

  test('a | or a backslash in an entry is escaped, so the entries come back exactly', () => {
    assert.equal(namesCell(['||', 'a\\b']), '\\|\\| | a\\\\b');
    assert.deepEqual(namesFromCell('\\|\\| | a\\\\b'), ['||', 'a\\b']);
  });

  test('a typed cell: split at every |, trimmed, blanks dropped; a lone backslash stays', () => {
    assert.deepEqual(namesFromCell(' K8s|kube |  | '), ['K8s', 'kube']);
    assert.deepEqual(namesFromCell('C:\\path'), ['C:\\path']);
    assert.deepEqual(namesFromCell(''), []);
  });

  test('any names survive the round trip (trimmed, non-blank entries)', () => {
    const name = fc
      .string({
        unit: fc.constantFrom('a', ' ', '|', '\\', "'", '=', '+', '-', '@', 'é', ',', '"'),
        maxLength: 8,
      })
      .map((text) => text.trim())
      .filter((text) => text !== '');
    fc.assert(
      fc.property(fc.array(name, { maxLength: 5 }), (names) => {
        assert.deepEqual(namesFromCell(namesCell(names)), names);
      }),
    );
  });

  test('a row carries the two cells last, quoted as RFC 4180 needs', () => {
    const row = csv.term({
      id: 1,
      term: 'Kubernetes',
      definition: 'Runs containers.',
      category: 'devops',
      see_also: [],
      aliases: ['K8s', 'Kube, the short one'],
      avoid: ['Kubernates'],
    });
    assert.equal(
      row,
      '1,Kubernetes,Runs containers.,devops,,"K8s | Kube, the short one",Kubernates\r\n',
    );
    assert.equal(csv.start(), 'id,term,definition,category,see_also,aliases,avoid\r\n');
  });
});
