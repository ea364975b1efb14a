import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eventually } from '../helpers/eventually.ts';
import { axeViolations, editingPage, skipReason } from './editing-fixture.ts';

/**
 * A term's history on the page says what each change did (issue 32, point 6): field by field
 * against the version before, the definition's words marked as added or removed in words a
 * screen reader says (not colour alone), see-also terms by name, other names included. Pure
 * page logic over the history the service gives: one store.
 */

describe('what each change did, in the history, in Chromium', { skip: skipReason }, () => {
  const the = editingPage();
  const versions = () => the.page.locator('.history-list > li');

  async function openHistory(id: number, entries: number): Promise<void> {
    await the.page.goto(`${the.url}/?term=${id}`);
    await the.page.locator('#detail').getByRole('button', { name: 'History' }).click();
    await eventually(
      async () => (await versions().count()) === entries,
      () => `${entries} history entries`,
    );
  }

  test('a change shows its fields: words of the definition, category, see-also by name, other names', async () => {
    await the.patch(2, {
      definition: 'Distributes incoming requests across several healthy instances.',
      category: 'backend',
      see_also: [1, 14],
      aliases: ['LB'],
    });
    await openHistory(2, 2);
    const change = versions().first();
    const row = (label: string) => change.locator('dt', { hasText: label }).locator('+ dd');
    await change.locator('.changes').waitFor();
    assert.deepEqual(await change.locator('.changes dt').allTextContents(), [
      'Definition',
      'Category',
      'See also',
      'Also called',
    ]);
    // Marked words carry their meaning in words: "added: " and "removed: " before each.
    const inserted = await row('Definition').locator('ins').allTextContents();
    const deleted = await row('Definition').locator('del').allTextContents();
    assert.ok(
      inserted.some((text) => /^added: .*requests/.test(text)),
      inserted.join(' | '),
    );
    assert.ok(
      deleted.some((text) => /^removed: .*traffic/.test(text)),
      deleted.join(' | '),
    );
    assert.match(
      (await row('Definition').textContent()) ?? '',
      /^Distributes incoming /,
      'the words kept are shown plain',
    );
    assert.equal(await row('Category').textContent(), 'removed: devops → added: backend');
    assert.deepEqual(await row('See also').locator('ins').allTextContents(), [
      'added: Circuit breaker',
    ]);
    assert.deepEqual(await row('See also').locator('del').allTextContents(), [
      'removed: Blue-green deployment',
    ]);
    assert.deepEqual(await row('Also called').locator('ins').allTextContents(), ['added: LB']);
    // The first version is a creation: shown as it was, with nothing to compare.
    assert.equal(await versions().last().locator('.changes').count(), 0);
    // The marks are not colour alone: underline and strike-through.
    const lines = await the.page.evaluate(
      `[getComputedStyle(document.querySelector('.changes ins')).textDecorationLine,
        getComputedStyle(document.querySelector('.changes del')).textDecorationLine]`,
    );
    assert.deepEqual(lines, ['underline', 'line-through']);
    assert.deepEqual(await axeViolations(the.page), []);
  });

  test('a restore, a rename and a deletion read as what they did; dark and 390 px wide', async () => {
    await the.patch(3, { term: 'Rate limits', see_also: [1, 99] });
    await the.remove(3);
    const entries = (await (await fetch(`${the.url}/terms/3/history`)).json()) as {
      revision: number;
    }[];
    const created = entries.at(-1)?.revision;
    const restored = await fetch(`${the.url}/terms/3/restore`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ revision: created }),
    });
    assert.equal(restored.status, 200);
    await the.patch(3, { avoid: ['Throttle'] });
    await the.page.emulateMedia({ colorScheme: 'dark' });
    await the.page.setViewportSize({ width: 390, height: 844 });
    await openHistory(3, 5);
    const [avoided, back, deleted, renamed] = [0, 1, 2, 3].map((i) => versions().nth(i));
    assert.ok(avoided && back && deleted && renamed);
    await avoided.locator('.changes dd ins', { hasText: 'Throttle' }).waitFor();
    // Brought back from a deletion: the state it came back in, nothing compared.
    assert.match((await back.textContent()) ?? '', /^Restored/);
    assert.equal(await back.locator('.changes').count(), 0);
    assert.match((await deleted.textContent()) ?? '', /^Deleted/);
    await renamed.locator('del', { hasText: 'Rate limiting' }).waitFor();
    await renamed.locator('ins', { hasText: 'Rate limits' }).waitFor();
    await renamed.locator('ins', { hasText: 'ID 99 (no such term)' }).waitFor();
    const overflow = await the.page.evaluate(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    );
    assert.equal(overflow, 0);
    assert.deepEqual(await axeViolations(the.page), []);
  });

  test('restoring a version that links to no term says so, in words', async () => {
    await the.patch(12, { see_also: [9] });
    await openHistory(12, 2);
    await versions().last().getByRole('button', { name: 'Restore this version' }).click();
    await the.page
      .locator('#detail [role="status"]', {
        hasText: 'Restored. Its see-also link to ID 99 leads to no term.',
      })
      .waitFor();
    assert.deepEqual((await the.stored(12))?.see_also, [9, 99]);
  });
});
