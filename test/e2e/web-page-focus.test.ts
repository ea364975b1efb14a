import { describe, test } from 'node:test';
import { eventually } from '../helpers/eventually.ts';
import { editingPage, skipReason } from './editing-fixture.ts';

/**
 * Where the focus goes when a button in the term's panel replaces the panel: Delete, a restore
 * the service accepts or refuses, and bringing a deleted term back. The pressed button is gone
 * with the old panel; the focus must land on the new panel (its name is the term's name), not
 * fall back to the page's start, where a keyboard or screen reader user would have to find
 * their way back. Pure page logic: one store.
 */

describe('the focus after a write from the term panel, in Chromium', { skip: skipReason }, () => {
  const the = editingPage();
  const panel = () => the.page.locator('#detail');
  const title = () => the.page.locator('#detail-title');

  /** What has the focus: the panel (by its heading), or the element's tag and text. */
  const focused = async () =>
    (await the.page.evaluate(`(() => {
      const active = document.activeElement;
      if (active && active.id === 'detail')
        return 'panel: ' + document.getElementById('detail-title').textContent;
      return (active ? active.tagName : 'nothing') + ': ' + (active ? active.textContent : '').trim().slice(0, 40);
    })()`)) as string;

  async function focusLandsOn(expected: string): Promise<void> {
    let last = '';
    await eventually(
      async () => {
        last = await focused();
        return last === expected;
      },
      () => `the focus on ${expected}, not ${last}`,
    );
  }

  async function openHistory(id: number, name: string): Promise<void> {
    await the.page.goto(`${the.url}/?term=${id}`);
    await title().filter({ hasText: name }).waitFor();
    await panel().getByRole('button', { name: 'History' }).click();
    await panel().getByRole('button', { name: 'Restore this version' }).first().waitFor();
  }

  test('a restore, accepted or refused, leaves the focus on the term it shows', async () => {
    await the.patch(4, { definition: 'Repeating it changes nothing.' });
    await openHistory(4, 'Idempotency');
    await panel().getByRole('button', { name: 'Restore this version' }).first().press('Enter');
    await title().filter({ hasText: 'Idempotency' }).waitFor();
    await eventually(
      async () => (await the.stored(4))?.definition !== 'Repeating it changes nothing.',
      () => 'the older version restored',
    );
    await focusLandsOn('panel: Idempotency');

    // Refused: someone changed the term after it was shown.
    await openHistory(4, 'Idempotency');
    await the.patch(4, { definition: 'Changed behind the page.' });
    await panel().getByRole('button', { name: 'Restore this version' }).first().press('Enter');
    await panel().getByText('so that version was not restored').waitFor();
    await focusLandsOn('panel: Idempotency');
  });

  test('Delete and bringing the term back leave the focus on the panel', async () => {
    await the.page.goto(`${the.url}/?term=4`);
    await title().filter({ hasText: 'Idempotency' }).waitFor();
    await panel().getByRole('button', { name: 'Delete' }).press('Enter');
    await the.dialog().getByRole('button', { name: 'Delete' }).press('Enter');
    await title().filter({ hasText: 'This term was deleted' }).waitFor();
    await focusLandsOn('panel: This term was deleted');

    await panel().getByRole('button', { name: 'Bring back as it was' }).press('Enter');
    await title().filter({ hasText: 'Idempotency' }).waitFor();
    await focusLandsOn('panel: Idempotency');
  });
});
