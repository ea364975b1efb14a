import './editing.css';
import {
  CATEGORIES,
  isBlank,
  MAX_DEFINITION_LENGTH,
  MAX_ID,
  MAX_OTHER_NAMES,
  MAX_SEE_ALSO,
  MAX_TERM_LENGTH,
} from '../../glossary/term.ts';
import {
  ApiError,
  create,
  freeId,
  getTerm,
  Invalid,
  replace,
  StaleTerm,
  type Term,
} from './api.ts';
import { byId, refocusIfLost } from './dom.ts';
import { guardDraft } from './draft-guard.ts';
import { conflictView, type Draft, deletedView, draftOf } from './form-conflict.ts';
import { type Field, fromDetail, fromFaults, type Problems } from './form-faults.ts';
import { sameNameAllowed } from './same-name.ts';
import { setUpSeeAlsoPicker } from './see-also-picker.ts';

export interface FormHandlers {
  write(change: () => Promise<void>): Promise<boolean>;
  /** The term was stored: show it. */
  saved(id: number): void;
  /** The address of a term, for a link to it. */
  linkTo(id: number): string;
}

const integer = /^[+-]?\d+$/;
const length = (text: string) => [...text].length;
const count = new Intl.NumberFormat('en');

/**
 * The add and edit form, in a dialog. It speaks to people ("Give the term a name.") and
 * checks what it can before sending; the service stays the judge. A new term goes through
 * the bulk endpoint, which refuses a taken id, so the page never stores a duplicate; the
 * button is disabled while a request is out, so a double click sends one.
 */
export function setUpTermForm(handlers: FormHandlers) {
  const dialog = byId<HTMLDialogElement>('term-dialog');
  const form = byId<HTMLFormElement>('term-form');
  const title = byId('term-form-title');
  const submit = byId<HTMLButtonElement>('form-submit');
  const formError = byId('form-error');
  const idInput = form.elements.namedItem('id') as HTMLInputElement;
  const nameInput = () => form.elements.namedItem('term') as HTMLInputElement;
  const conflict = byId('form-conflict');
  const picker = setUpSeeAlsoPicker();
  /** The term being edited: its ETag as last read, and its fields then (what the draft began from). */
  let editing: { id: number; etag: string; base: Draft } | null = null;
  /**
   * A new term's free id on its way: the form opens at once and the id is filled when it
   * comes, unless the person typed one meanwhile; Add term waits for it.
   */
  let idComing: Promise<void> | null = null;
  const guard = guardDraft(
    dialog,
    () => JSON.stringify([...new FormData(form).entries(), picker.ids()]),
    () => value('term').trim() || 'the new term',
  );

  const value = (name: Field) =>
    String((form.elements.namedItem(name) as HTMLInputElement).value ?? '');

  function clear(): void {
    for (const slot of form.querySelectorAll<HTMLElement>('[data-error-for]'))
      slot.replaceChildren();
    for (const control of form.querySelectorAll('[aria-invalid]')) {
      control.removeAttribute('aria-invalid');
    }
    formError.textContent = '';
  }

  function show(problems: Problems): void {
    let first: HTMLElement | null = null;
    for (const [field, message] of Object.entries(problems) as [Field, string][]) {
      byId(`form-${field}-error`).textContent = message;
      const control = form.elements.namedItem(field) as HTMLElement;
      control.setAttribute('aria-invalid', 'true');
      first ??= control;
    }
    first?.focus();
  }

  /** The term from the fields, or what is wrong with them, in words for people. */
  function read(): { term: Record<string, unknown> } | { problems: Problems } {
    const problems: Problems = {};
    const idText = value('id').trim();
    const id = Number(idText);
    if (idText === '') problems.id = 'Give the term an ID: a whole number.';
    else if (!integer.test(idText) || !Number.isSafeInteger(id) || Math.abs(id) > MAX_ID) {
      problems.id = `An ID is a whole number between ${count.format(-MAX_ID)} and ${count.format(MAX_ID)}.`;
    }
    const name = value('term');
    if (isBlank(name)) problems.term = 'Give the term a name.';
    else if (length(name) > MAX_TERM_LENGTH) {
      problems.term = `A name has at most ${MAX_TERM_LENGTH} characters.`;
    }
    const definition = value('definition');
    if (isBlank(definition)) problems.definition = 'Write a definition.';
    else if (length(definition) > MAX_DEFINITION_LENGTH) {
      problems.definition = `A definition has at most ${count.format(MAX_DEFINITION_LENGTH)} characters.`;
    }
    const category = value('category');
    if (!(CATEGORIES as readonly string[]).includes(category)) {
      problems.category = 'Choose a category.';
    }
    const related = picker.ids();
    const missing = picker.missing();
    if (missing.length > 0) {
      problems.see_also = `No term has the ID ${missing.join(', ')}: remove it from see also, or choose another term.`;
    } else if (value('see_also').trim()) {
      problems.see_also = 'Choose a term from the list for the name typed here, or clear it.';
    } else if (related.length > MAX_SEE_ALSO) {
      problems.see_also = `A term can point to at most ${MAX_SEE_ALSO} others.`;
    }
    const aliases = names('aliases');
    const avoid = names('avoid');
    for (const [field, list, what] of [
      ['aliases', aliases, 'aliases'],
      ['avoid', avoid, 'names to avoid'],
    ] as const) {
      const long = list.findIndex((text) => length(text) > MAX_TERM_LENGTH);
      if (list.length > MAX_OTHER_NAMES) {
        problems[field] = `A term has at most ${MAX_OTHER_NAMES} ${what}.`;
      } else if (long >= 0) {
        problems[field] = `Line ${long + 1}: a name has at most ${MAX_TERM_LENGTH} characters.`;
      }
    }
    if (Object.keys(problems).length > 0) return { problems };
    return {
      term: { id, term: name, definition, category, see_also: related, aliases, avoid },
    };
  }

  /** One name a line; blank lines are left out, and spaces around a name. */
  function names(field: 'aliases' | 'avoid'): string[] {
    return value(field)
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => !isBlank(line));
  }

  /** Puts a term's fields (or a draft's) into the form. */
  function fill(draft: Draft): void {
    const set = (name: string, text: string) => {
      (form.elements.namedItem(name) as HTMLInputElement).value = text;
    };
    set('term', draft.term);
    set('definition', draft.definition);
    set('category', draft.category);
    set('aliases', draft.aliases.join('\n'));
    set('avoid', draft.avoid.join('\n'));
  }

  /**
   * Someone saved (or deleted) the term since the draft began: show their version beside the
   * draft; the next save goes with their ETag, so it replaces what they saved, as chosen.
   */
  async function resolveConflict(mine: Draft): Promise<void> {
    if (!editing) return;
    const now = await getTerm(editing.id);
    if (!now) {
      conflictDeleted(mine);
      return;
    }
    const theirs = draftOf(now.term);
    const view = conflictView(editing.base, mine, theirs, {
      apply(key, chosen) {
        if (key === 'see_also') void picker.set(chosen as number[], editing?.id);
        else fill({ ...currentDraft(), [key]: chosen });
      },
    });
    editing = { id: editing.id, etag: now.etag, base: theirs };
    conflict.replaceChildren(view);
    view.focus();
  }

  /** The draft's fields as a Draft, whatever their faults (for the conflict's choices). */
  function currentDraft(): Draft {
    return {
      term: value('term'),
      definition: value('definition'),
      category: value('category') as Draft['category'],
      see_also: picker.ids(),
      aliases: value('aliases').split(/\r?\n/),
      avoid: value('avoid').split(/\r?\n/),
    };
  }

  function conflictDeleted(mine: Draft): void {
    const view = deletedView(
      mine.term,
      () => {
        // From here the draft is a new term with the same id.
        editing = null;
        submit.textContent = 'Add term';
        form.requestSubmit();
      },
      () => {
        guard.settle();
        dialog.close();
      },
    );
    conflict.replaceChildren(view);
    view.focus();
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (submit.disabled) return;
    if (idComing) {
      submit.disabled = true;
      await idComing;
      submit.disabled = false;
    }
    clear();
    const fields = read();
    if ('problems' in fields) {
      show(fields.problems);
      return;
    }
    submit.disabled = true;
    submit.setAttribute('aria-busy', 'true');
    const term = fields.term;
    try {
      if (
        !editing &&
        !(await sameNameAllowed(String(term.term), Number(term.id), handlers.linkTo))
      ) {
        // Back to the form to change the name: the question was about it.
        nameInput().focus();
        return;
      }
      let refused: string | null = null;
      const done = await handlers.write(async () => {
        if (editing) {
          await replace(term, editing.id, editing.etag);
          return;
        }
        const outcome = await create(term);
        if ('detail' in outcome) refused = outcome.detail;
      });
      if (!done) return;
      if (refused !== null) {
        if (/already exists/.test(refused)) {
          const free = await freeId();
          show({ id: `ID ${term.id} is taken: ${free} is free.` });
          idInput.value = String(free);
        } else {
          const problems = fromDetail(refused);
          if (problems) show(problems);
          else formError.textContent = `The glossary refused this term: ${refused}`;
        }
        return;
      }
      guard.settle();
      dialog.close();
      handlers.saved(term.id as number);
    } catch (error) {
      if (error instanceof Invalid) show(fromFaults(error.faults));
      // 412: changed since read; 404: deleted since (a PUT never creates).
      else if (
        error instanceof StaleTerm ||
        (editing && error instanceof ApiError && error.status === 404)
      )
        await resolveConflict(term as unknown as Draft);
      else
        formError.textContent =
          error instanceof ApiError ? error.message : 'It could not be saved.';
    } finally {
      submit.disabled = false;
      submit.removeAttribute('aria-busy');
      refocusIfLost(submit);
    }
  });
  dialog.addEventListener('close', () => conflict.replaceChildren());

  return {
    async add(): Promise<void> {
      editing = null;
      form.reset();
      clear();
      await picker.set([]);
      title.textContent = 'New term';
      submit.textContent = 'Add term';
      idInput.readOnly = false;
      dialog.showModal();
      guard.settle();
      nameInput().focus();
      const coming = freeId().then(
        (free) => {
          if (editing || !dialog.open || idInput.value.trim() !== '') return;
          const untouched = !guard.dirty();
          idInput.value = String(free);
          if (untouched) guard.settle();
        },
        () => {
          // The field stays empty; the person types an id.
        },
      );
      idComing = coming;
      await coming;
      if (idComing === coming) idComing = null;
    },
    async edit(term: Term, etag: string): Promise<void> {
      editing = { id: term.id, etag, base: draftOf(term) };
      form.reset();
      clear();
      title.textContent = `Edit “${term.term}”`;
      submit.textContent = 'Save changes';
      idInput.value = String(term.id);
      idInput.readOnly = true;
      fill(draftOf(term));
      await picker.set(term.see_also, term.id);
      guard.settle();
      dialog.showModal();
      nameInput().focus();
    },
  };
}

export type TermForm = ReturnType<typeof setUpTermForm>;
