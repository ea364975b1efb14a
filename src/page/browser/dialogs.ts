import { TokenNeeded, token } from './api.ts';
import { byId } from './dom.ts';

/** Resolves with the value of the button that closed the dialog ('' on Escape). */
function answer(dialog: HTMLDialogElement): Promise<string> {
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => resolve(dialog.returnValue), { once: true });
  });
}

/**
 * Asks before a term is deleted; `linkedFrom` names the terms whose see-also lead to it (their
 * links will lead nowhere), `more` how many others do.
 */
export async function confirmDelete(
  name: string,
  linkedFrom: string[] = [],
  more = 0,
): Promise<boolean> {
  const dialog = byId<HTMLDialogElement>('confirm-dialog');
  byId('confirm-text').textContent =
    `“${name}” will be removed from the glossary. Its history keeps it, so it can be brought back.`;
  const links = byId('confirm-links');
  links.replaceChildren();
  if (linkedFrom.length > 0) {
    const others = more > 0 ? ` and ${more} more` : '';
    links.append(
      linkedFrom.length + more === 1
        ? 'One term links to it; its see-also link will lead to no term: '
        : `${linkedFrom.length + more} terms link to it; their see-also link will lead to no term: `,
      linkedFrom.map((other) => `“${other}”`).join(', '),
      `${others}.`,
    );
  }
  dialog.returnValue = '';
  dialog.showModal();
  return (await answer(dialog)) === 'yes';
}

/**
 * Asks for a token, with `reason` (the service's refusal in words for people); keeps it for
 * the tab. Resolves false when the person cancels.
 */
export async function askForToken(reason: string): Promise<boolean> {
  const dialog = byId<HTMLDialogElement>('token-dialog');
  const input = byId<HTMLInputElement>('token-input');
  byId('token-text').textContent = reason;
  byId('token-forget').hidden = token.get() === null;
  input.value = '';
  dialog.returnValue = '';
  dialog.showModal();
  input.focus();
  const choice = await answer(dialog);
  if (choice === 'forget') {
    token.clear();
    return false;
  }
  if (choice !== 'use' || !input.value.trim()) return false;
  token.set(input.value.trim());
  return true;
}

/**
 * Runs a request that may need a token: on a 401 or 403 it asks for one and tries again,
 * until it works or the person cancels (then resolves false).
 */
export async function withToken(work: () => Promise<void>): Promise<boolean> {
  for (;;) {
    try {
      await work();
      return true;
    } catch (error) {
      if (!(error instanceof TokenNeeded)) throw error;
      if (!(await askForToken(error.message))) return false;
    }
  }
}

/** A question with two answers; `text` may hold links. Resolves true for `yes`. */
export async function ask(question: {
  title: string;
  text: string | Node[];
  yes: string;
  no: string;
}): Promise<boolean> {
  const dialog = byId<HTMLDialogElement>('ask-dialog');
  byId('ask-title').textContent = question.title;
  const text = byId('ask-text');
  if (typeof question.text === 'string') text.textContent = question.text;
  else text.replaceChildren(...question.text);
  byId('ask-yes').textContent = question.yes;
  byId('ask-no').textContent = question.no;
  dialog.returnValue = '';
  dialog.showModal();
  return (await answer(dialog)) === 'yes';
}
