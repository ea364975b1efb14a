import assert from 'node:assert/strict';
import { test } from 'node:test';
import { StatementNames } from '../../src/store/postgres/statement-names.ts';

test('statement names: one per text, the same each time, and no more than the most', () => {
  const names = new StatementNames('ranking', 2);
  const first = names.nameOf('SELECT 1');
  assert.equal(first, 'ranking-0');
  assert.equal(names.nameOf('SELECT 1'), first);
  assert.equal(names.nameOf('SELECT 2'), 'ranking-1');
  // Past the most, a text is planned each time: no name, now or later.
  assert.equal(names.nameOf('SELECT 3'), undefined);
  assert.equal(names.nameOf('SELECT 3'), undefined);
  assert.equal(names.nameOf('SELECT 2'), 'ranking-1');
});
