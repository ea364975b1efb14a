import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { backends } from '../helpers/backends.ts';
import { eventually } from '../helpers/eventually.ts';
import { axeViolations, editingPage, skipReason } from './editing-fixture.ts';

/**
 * Two people editing one term on the page, in Chromium (issue 32, point 2): the second to save
 * sees the first one's version beside the draft and chooses field by field; a term deleted
 * meanwhile can be created again; a draft is never dropped by Escape, Back or leaving the page
 * without asking; a restore never replaces a change it did not see. The other person writes
 * through the API. On every store: the page depends on the store's ETags and 412s.
 */

for (const backend of backends()) {
  describe(`editing together on the page (${backend.name}), in Chromium`, {
    skip: skipReason,
  }, () => {
    const the = editingPage(backend);
    const detail = () => the.page.locator('#detail');
    const heading = () => the.page.locator('#detail-title');

    async function openEdit(id: number, name: string): Promise<void> {
      await the.page.goto(`${the.url}/?term=${id}`);
      await heading().filter({ hasText: name }).waitFor();
      await detail().getByRole('button', { name: 'Edit' }).click();
      await the
        .dialog()
        .getByRole('heading', { name: `Edit “${name}”` })
        .waitFor();
    }

    test('a save after someone else saved shows their version, field by field, and saves the choice', async () => {
      await openEdit(1, 'API gateway');
      const form = the.dialog();
      await form.getByLabel('Name').fill('API gateway (mine)');
      await form.getByLabel('Definition').fill('My definition of the one door.');
      await the.patch(1, { definition: 'Their definition.', category: 'devops' });

      await form.getByRole('button', { name: 'Save changes' }).click();
      const conflict = form.getByRole('region', {
        name: 'Someone else saved this term while you edited it',
      });
      await conflict.waitFor();
      assert.equal((await the.stored(1))?.term, 'API gateway', 'nothing saved over theirs');
      const field = (name: string) => conflict.getByRole('group', { name, exact: true });
      // Each differing field, who changed it, and a choice that starts on the changed side.
      await field('Name').getByText('You changed this.').waitFor();
      await field('Definition').getByText('You both changed this.').waitFor();
      await field('Category').getByText('They changed this.').waitFor();
      assert.equal(await conflict.getByRole('group').count(), 3, 'only the fields that differ');
      assert.ok(await field('Name').getByRole('radio', { name: 'Keep mine' }).isChecked());
      assert.ok(await field('Definition').getByRole('radio', { name: 'Keep mine' }).isChecked());
      assert.ok(await field('Category').getByRole('radio', { name: 'Take theirs' }).isChecked());
      await field('Definition').getByText('Their definition.').waitFor();
      // A field only they changed is already theirs in the form: saving never undoes it unasked.
      assert.equal(await form.getByLabel('Category', { exact: true }).inputValue(), 'devops');
      assert.deepEqual(await axeViolations(the.page), []);

      await field('Definition').getByRole('radio', { name: 'Take theirs' }).check();
      assert.equal(await form.getByLabel('Definition').inputValue(), 'Their definition.');
      await field('Definition').getByRole('radio', { name: 'Keep mine' }).check();
      assert.equal(
        await form.getByLabel('Definition').inputValue(),
        'My definition of the one door.',
      );
      await field('Definition').getByRole('radio', { name: 'Take theirs' }).check();
      await form.getByRole('button', { name: 'Save changes' }).click();
      await heading().filter({ hasText: 'API gateway (mine)' }).waitFor();
      const saved = await the.stored(1);
      assert.deepEqual(
        [saved?.term, saved?.definition, saved?.category],
        ['API gateway (mine)', 'Their definition.', 'devops'],
      );
    });

    test('a term deleted while it was edited can be created again with the draft, or left', async () => {
      await openEdit(4, 'Idempotency');
      await the.dialog().getByLabel('Definition').fill('Doing it twice is doing it once.');
      await the.remove(4);
      await the.dialog().getByRole('button', { name: 'Save changes' }).click();
      const gone = the.dialog().getByRole('region', {
        name: 'Someone deleted this term while you edited it',
      });
      await gone.getByText('“Idempotency” is no longer in the glossary').waitFor();
      await gone.getByRole('button', { name: 'Create it again' }).click();
      await eventually(
        async () => (await the.page.locator('dialog[open]').count()) === 0,
        'the form closes once the term is created again',
      );
      await heading().filter({ hasText: 'Idempotency' }).waitFor();
      assert.equal((await the.stored(4))?.definition, 'Doing it twice is doing it once.');

      await openEdit(3, 'Rate limiting');
      await the.dialog().getByLabel('Definition').fill('Lost on purpose.');
      await the.remove(3);
      await the.dialog().getByRole('button', { name: 'Save changes' }).click();
      await the.dialog().getByRole('button', { name: 'Discard my changes' }).click();
      await eventually(
        async () => (await the.page.locator('dialog[open]').count()) === 0,
        'the form closes',
      );
      assert.equal(await the.stored(3), null);
    });

    test('"Restore this version" does not replace a change made after the history was shown', async () => {
      await the.patch(2, { definition: 'Second version.' });
      await the.page.goto(`${the.url}/?term=2`);
      await detail().getByRole('button', { name: 'History' }).click();
      const versions = the.page.locator('.history-list > li');
      await eventually(
        async () => (await versions.count()) === 2,
        () => 'two history entries',
      );
      await the.patch(2, { definition: 'Third version, made meanwhile.' });
      await versions.last().getByRole('button', { name: 'Restore this version' }).click();
      await detail()
        .getByText('Someone changed this term after it was shown here, so that version was not')
        .waitFor();
      assert.equal((await the.stored(2))?.definition, 'Third version, made meanwhile.');
      // The history is shown again, as it is now: the change made meanwhile on top.
      await eventually(
        async () => (await versions.count()) === 3,
        () => 'the history shown again with three entries',
      );
      assert.match((await versions.first().textContent()) ?? '', /Third version/);
      await versions.last().getByRole('button', { name: 'Restore this version' }).click();
      await detail().locator('.definition', { hasText: 'Distributes incoming traffic' }).waitFor();
    });
  });
}

describe('an unsaved draft on the page, in Chromium', { skip: skipReason }, () => {
  const the = editingPage();
  const heading = () => the.page.locator('#detail-title');
  const openDialogs = () => the.page.locator('dialog[open]');

  async function openEdit(): Promise<void> {
    await the.page.goto(`${the.url}/?term=1`);
    await heading().filter({ hasText: 'API gateway' }).waitFor();
    // A second entry in the history, so Back has somewhere to go on this page.
    await the.page.locator('#detail .see-also a', { hasText: 'Load balancer' }).click();
    await heading().filter({ hasText: 'Load balancer' }).waitFor();
    await the.page.locator('#detail').getByRole('button', { name: 'Edit' }).click();
    await the.dialog().getByRole('heading', { name: 'Edit “Load balancer”' }).waitFor();
  }

  test('the conflict and the see-also list fit a 390 px screen in dark mode, and axe finds nothing', async () => {
    await the.page.emulateMedia({ colorScheme: 'dark' });
    await the.page.setViewportSize({ width: 390, height: 844 });
    await openEdit();
    const form = the.dialog();
    await form
      .getByLabel('Definition')
      .fill('Mine, on a phone, with a rather long sentence in it.');
    await the.patch(2, { definition: 'Theirs.', aliases: ['LB'] });
    await form.getByRole('button', { name: 'Save changes' }).click();
    await form.getByRole('group', { name: 'Also called' }).waitFor();
    await form.getByRole('combobox', { name: /^See also/ }).pressSequentially('idem');
    await form.getByRole('option', { name: /Idempotency/ }).waitFor();
    const overflow = await the.page.evaluate(
      `[document.documentElement.scrollWidth - document.documentElement.clientWidth,
        (() => { const d = document.querySelector('#term-dialog'); return d.scrollWidth - d.clientWidth; })()]`,
    );
    assert.deepEqual(overflow, [0, 0]);
    assert.deepEqual(await axeViolations(the.page), []);
  });

  test('Escape and Cancel close an unchanged form at once, and ask first with a draft', async () => {
    await openEdit();
    await the.page.keyboard.press('Escape');
    await eventually(async () => (await openDialogs().count()) === 0, 'Escape closes the form');

    await the.page.locator('#detail').getByRole('button', { name: 'Edit' }).click();
    await the.dialog().getByLabel('Definition').fill('A draft worth keeping.');
    await the.page.keyboard.press('Escape');
    const ask = the.page.getByRole('dialog', { name: 'Leave without saving?' });
    await ask.getByText('Your changes to “Load balancer” are not saved.').waitFor();
    assert.deepEqual(await axeViolations(the.page), []);
    await ask.getByRole('button', { name: 'Keep editing' }).click();
    assert.equal(
      await the.page.getByLabel('Definition').inputValue(),
      'A draft worth keeping.',
      'the draft is still there',
    );
    await the.page.getByRole('button', { name: 'Cancel' }).click();
    await ask.getByRole('button', { name: 'Discard changes' }).click();
    await eventually(async () => (await openDialogs().count()) === 0, 'the form closes');
  });

  test('Back with a draft asks first; keeping it stays on the form, where it was', async () => {
    await openEdit();
    const here = the.page.url();
    await the.dialog().getByLabel('Name').fill('Load balancer (draft)');
    await the.page.goBack();
    const ask = the.page.getByRole('dialog', { name: 'Leave without saving?' });
    await ask.getByRole('button', { name: 'Keep editing' }).click();
    await eventually(async () => the.page.url() === here, 'the address is the form’s again');
    assert.equal(await the.page.getByLabel('Name').inputValue(), 'Load balancer (draft)');
    await heading().filter({ hasText: 'Load balancer' }).waitFor();

    await the.page.goBack();
    await ask.getByRole('button', { name: 'Discard changes' }).click();
    await eventually(async () => (await openDialogs().count()) === 0, 'the form closes');
    await heading().filter({ hasText: 'API gateway' }).waitFor();
    assert.equal((await the.stored(2))?.term, 'Load balancer');
  });

  test('Forward with a draft asks too, and keeping it comes back to the form’s entry', async () => {
    await openEdit();
    await the.page.keyboard.press('Escape');
    await eventually(async () => (await openDialogs().count()) === 0, 'the form closes');
    await the.page.goBack();
    await heading().filter({ hasText: 'API gateway' }).waitFor();
    const here = the.page.url();
    await the.page.locator('#detail').getByRole('button', { name: 'Edit' }).click();
    await the.dialog().getByLabel('Name').fill('API gateway (draft)');
    await the.page.goForward();
    const ask = the.page.getByRole('dialog', { name: 'Leave without saving?' });
    await ask.getByRole('button', { name: 'Keep editing' }).click();
    await eventually(async () => the.page.url() === here, 'back on the form’s entry');
    assert.equal(await the.page.getByLabel('Name').inputValue(), 'API gateway (draft)');
  });

  test('leaving the page with a draft asks the browser to confirm; without one it does not', async () => {
    await openEdit();
    const asked: string[] = [];
    the.page.on('dialog', (question) => {
      asked.push(question.type());
      void question.dismiss();
    });
    await the.dialog().getByLabel('Definition').fill('Not saved yet.');
    await the.page.close({ runBeforeUnload: true });
    await eventually(() => asked.length === 1, 'the browser asks before leaving');
    assert.deepEqual(asked, ['beforeunload']);
    assert.equal(the.page.isClosed(), false, 'dismissed: the page stays');

    await the.page
      .getByLabel('Definition')
      .fill((await the.stored(2))?.definition ?? 'the stored definition');
    const closed = new Promise((resolve) => the.page.once('close', resolve));
    await the.page.close({ runBeforeUnload: true });
    await closed;
    assert.deepEqual(asked, ['beforeunload'], 'nothing changed: no question');
  });
});
