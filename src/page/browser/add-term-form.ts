import { ApiError, createTerm, type ValidationFault } from './api.ts';
import { byId, h, termLink } from './dom.ts';

const FIELDS = ['id', 'term', 'definition', 'category', 'see_also'] as const;

/**
 * The add form sends what was typed, nearly as typed, and lets the service judge it: its 422
 * faults (`loc: ["body", field, ...]`) are shown next to the fields they concern.
 */
export function setUpAddForm(onCreated: () => void): void {
  const form = byId<HTMLFormElement>('add-form');
  const status = byId('add-status');

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearErrors(form);
    status.textContent = 'Adding…';
    const data = new FormData(form);
    try {
      const result = await createTerm(toBody(data));
      if (result.ok) {
        form.reset();
        status.replaceChildren(
          'Added ',
          termLink(result.term.id, result.term.term),
          ` (ID ${result.term.id}).`,
        );
        onCreated();
      } else {
        status.textContent = 'The term was not added: see the messages above.';
        showFaults(form, result.faults);
      }
    } catch (error) {
      status.textContent = error instanceof ApiError ? error.message : 'The term was not added.';
    }
  });
}

function toBody(data: FormData): Record<string, unknown> {
  const text = (name: string) => String(data.get(name) ?? '');
  const body: Record<string, unknown> = {
    term: text('term'),
    definition: text('definition'),
    see_also: text('see_also')
      .split(/[\s,;]+/)
      .filter(Boolean)
      .map(integerOrText),
  };
  // An empty ID or category is left out, so the service reports it as missing.
  if (text('id').trim() !== '') body.id = integerOrText(text('id').trim());
  if (text('category') !== '') body.category = text('category');
  return body;
}

/** Whole numbers are sent as numbers; anything else as typed, for the service to reject. */
function integerOrText(value: string): number | string {
  return /^-?\d+$/.test(value) ? Number(value) : value;
}

function clearErrors(form: HTMLFormElement): void {
  for (const slot of form.querySelectorAll<HTMLElement>('[data-error-for]')) {
    slot.replaceChildren();
  }
  for (const control of form.querySelectorAll('[aria-invalid]')) {
    control.removeAttribute('aria-invalid');
  }
}

function showFaults(form: HTMLFormElement, faults: ValidationFault[]): void {
  let first: HTMLElement | null = null;
  for (const fault of faults) {
    const [, field, ...rest] = fault.loc;
    const known = FIELDS.find((name) => name === field);
    const slot = form.querySelector<HTMLElement>(`[data-error-for="${known ?? ''}"]`);
    const where = rest.length > 0 ? `item ${rest.join('.')}: ` : '';
    slot?.append(h('span', {}, `${where}${fault.msg}`));
    if (known) {
      const control = form.elements.namedItem(known) as HTMLElement | null;
      control?.setAttribute('aria-invalid', 'true');
      first ??= control;
    }
  }
  first?.focus();
}
