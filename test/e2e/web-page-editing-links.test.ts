import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { backends } from '../helpers/backends.ts';
import { eventually } from '../helpers/eventually.ts';
import { axeViolations, editingPage, skipReason } from './editing-fixture.ts';

/**
 * Links and names as people think of them, on the page (issue 32, points 4 and 5): see-also
 * terms picked by name in a combobox and shown as chips; a link to a missing id refused in
 * words; a term shows which terms link to it, and deleting it names them; a new term whose
 * name another has asks first. "Linked from" reads `links_to`, which each store answers in its
 * own way: on every store.
 */

for (const backend of backends()) {
  describe(`the terms that link to a term (${backend.name}), in Chromium`, {
    skip: skipReason,
  }, () => {
    const the = editingPage(backend);

    test('a term shows which terms link to it, by name, and deleting it names them', async () => {
      await the.page.goto(`${the.url}/?term=1`);
      const linked = the.page.locator('#detail .linked-from');
      await the.page.locator('#detail h3', { hasText: 'Linked from' }).waitFor();
      assert.deepEqual(await linked.getByRole('link').allTextContents(), [
        'Load balancer',
        'OpenAPI',
        'Rate limiting',
      ]);
      await the.page.locator('#detail').getByRole('button', { name: 'Delete' }).click();
      const ask = the.page.getByRole('dialog', { name: 'Delete this term?' });
      await ask
        .getByText(
          '3 terms link to it; their see-also link will lead to no term: “Load balancer”, “OpenAPI”, “Rate limiting”.',
        )
        .waitFor();
      await ask.getByRole('button', { name: 'Keep it' }).click();
      assert.ok(await the.stored(1), 'kept');
      await linked.getByRole('link', { name: 'OpenAPI' }).click();
      await the.page.locator('#detail-title', { hasText: 'OpenAPI' }).waitFor();
      // Nothing links to OpenAPI but Docs as code: one name, and a delete says so.
      assert.deepEqual(await linked.getByRole('link').allTextContents(), ['Docs as code']);
      await the.page.locator('#detail').getByRole('button', { name: 'Delete' }).click();
      await ask
        .getByText('One term links to it; its see-also link will lead to no term: “Docs as code”.')
        .waitFor();
      await ask.getByRole('button', { name: 'Keep it' }).click();
    });
  });
}

describe('see-also by name and names taken, in Chromium', { skip: skipReason }, () => {
  const the = editingPage();
  const form = () => the.page.locator('#term-dialog');
  const combobox = () => form().getByRole('combobox', { name: /^See also/ });
  const options = () => form().getByRole('option');

  async function openEdit(id: number, name: string): Promise<void> {
    await the.page.goto(`${the.url}/?term=${id}`);
    await the.page.locator('#detail-title', { hasText: name }).waitFor();
    await the.page.locator('#detail').getByRole('button', { name: 'Edit' }).click();
    await form()
      .getByRole('heading', { name: `Edit “${name}”` })
      .waitFor();
  }

  test('see-also terms are picked by name with the keyboard, shown as chips, saved as ids', async () => {
    await openEdit(8, 'Content Security Policy');
    await combobox().pressSequentially('load');
    await options().filter({ hasText: 'Load balancer' }).waitFor();
    assert.equal(await combobox().getAttribute('aria-expanded'), 'true');
    assert.deepEqual(await axeViolations(the.page), []);
    await the.page.keyboard.press('ArrowDown');
    const active = await combobox().getAttribute('aria-activedescendant');
    assert.ok(active);
    assert.equal(await form().locator(`#${active}`).getAttribute('aria-selected'), 'true');
    await the.page.keyboard.press('Enter');
    const chips = form().getByRole('list', { name: 'See also, chosen' });
    await chips.getByText('Load balancer').waitFor();
    assert.equal(await combobox().getAttribute('aria-expanded'), 'false');
    assert.equal(await combobox().inputValue(), '');

    // Escape closes the list, not the form.
    await combobox().pressSequentially('idem');
    await options().filter({ hasText: 'Idempotency' }).waitFor();
    await the.page.keyboard.press('Escape');
    await eventually(
      async () => (await combobox().getAttribute('aria-expanded')) === 'false',
      'Escape closes the list',
    );
    assert.ok(await form().isVisible(), 'the form is still open');
    await combobox().fill('');

    // A number is looked up as an id; one that names no term is refused in words.
    await combobox().pressSequentially('999');
    await form()
      .getByText('No term has the ID 999: a see-also link must lead to a term.')
      .waitFor();
    await combobox().fill('');
    await combobox().pressSequentially('13');
    await options().filter({ hasText: 'OpenAPI' }).click();
    await chips.getByText('OpenAPI').waitFor();

    // A name typed but not chosen is not sent.
    await combobox().pressSequentially('rate');
    await options().filter({ hasText: 'Rate limiting' }).waitFor();
    await combobox().press('Tab');
    await form().getByRole('button', { name: 'Save changes' }).click();
    await form()
      .getByText('Choose a term from the list for the name typed here, or clear it.')
      .waitFor();
    await combobox().fill('');
    await chips.getByRole('button', { name: 'Remove Load balancer' }).click();
    await eventually(async () => (await chips.getByText('Load balancer').count()) === 0, 'removed');
    await form().getByRole('button', { name: 'Save changes' }).click();
    await the.page.locator('#detail .see-also a', { hasText: 'OpenAPI' }).waitFor();
    assert.deepEqual((await the.stored(8))?.see_also, [13]);
  });

  test('a see-also id that names no term is refused on the page until it is removed', async () => {
    await openEdit(12, 'Canary release');
    const chips = form().getByRole('list', { name: 'See also, chosen' });
    await chips.getByText('ID 99 (no such term)').waitFor();
    await form().getByRole('button', { name: 'Save changes' }).click();
    await form()
      .getByText('No term has the ID 99: remove it from see also, or choose another term.')
      .waitFor();
    assert.deepEqual((await the.stored(12))?.see_also, [9, 99], 'nothing sent');
    await chips.getByRole('button', { name: 'Remove ID 99 (no such term)' }).click();
    await form().getByRole('button', { name: 'Save changes' }).click();
    await eventually(async () => !(await form().isVisible()), 'saved and closed');
    assert.deepEqual((await the.stored(12))?.see_also, [9]);
  });

  test('a new term with a name another term has asks first, with a link to that term', async () => {
    await the.page.goto(`${the.url}/`);
    await the.page.getByRole('button', { name: 'New term' }).click();
    await eventually(
      async () => (await form().getByLabel('ID', { exact: true }).inputValue()) === '17',
      'a free id',
    );
    await form().getByLabel('Name').fill('api  GATEWAY');
    await form().getByLabel('Definition').fill('A second entry point.');
    await form().getByLabel('Category', { exact: true }).selectOption('backend');
    await form().getByRole('button', { name: 'Add term' }).click();
    const ask = the.page.getByRole('dialog', { name: 'This name is taken' });
    const link = ask.getByRole('link', { name: 'API gateway' });
    await link.waitFor();
    assert.match((await link.getAttribute('href')) ?? '', /term=1$/);
    assert.deepEqual(await axeViolations(the.page), []);
    await ask.getByRole('button', { name: 'Go back to the form' }).click();
    assert.equal(await the.stored(17), null, 'nothing sent');
    assert.ok(await form().isVisible());
    // Back in the form, on the name the question was about (not at the page's start).
    await eventually(
      async () => (await the.page.evaluate('document.activeElement.id')) === 'form-term',
      'the focus on the Name field',
    );
    await form().getByRole('button', { name: 'Add term' }).click();
    await ask.getByRole('button', { name: 'Add it anyway' }).click();
    await the.page.locator('#detail-title', { hasText: 'api  GATEWAY' }).waitFor();
    assert.equal((await the.stored(17))?.term, 'api  GATEWAY');
  });
});
