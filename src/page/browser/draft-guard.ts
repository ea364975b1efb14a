import { ask } from './dialogs.ts';

/**
 * Keeps an unsaved draft from being lost by a key or a click: Escape, the Cancel button, Back
 * (and Forward) and leaving the page ask first when the form holds a change; with nothing
 * changed they just close or leave.
 */

export interface Guard {
  /** The form now shows what is stored: nothing to lose until it changes. */
  settle(): void;
  /** Whether the draft differs from what was stored. */
  dirty(): boolean;
}

export function guardDraft(
  dialog: HTMLDialogElement,
  snapshot: () => string,
  name: () => string,
): Guard {
  let settled = '';
  const dirty = () => dialog.open && snapshot() !== settled;
  /** Resolves true when the draft may go (nothing changed, or the person says so). */
  const mayLeave = async () =>
    !dirty() ||
    ask({
      title: 'Leave without saving?',
      text: `Your changes to “${name()}” are not saved. If you leave, they are lost.`,
      yes: 'Discard changes',
      no: 'Keep editing',
    });

  dialog.addEventListener('cancel', (event) => {
    if (!dirty()) return;
    event.preventDefault();
    void mayLeave().then((leave) => leave && dialog.close());
  });
  dialog.querySelector('[data-cancel]')?.addEventListener('click', async () => {
    if (await mayLeave()) dialog.close();
  });

  // Back cannot be cancelled: with a draft at stake the page asks, and goes forward again to
  // where the form was when the person keeps editing (that second move is not asked about).
  let returning = false;
  window.addEventListener('popstate', async () => {
    if (returning) {
      returning = false;
      return;
    }
    if (!dialog.open) return;
    if (await mayLeave()) dialog.close();
    else {
      returning = true;
      window.history.forward();
    }
  });

  window.addEventListener('beforeunload', (event) => {
    if (dirty()) event.preventDefault();
  });

  return {
    settle: () => {
      settled = snapshot();
    },
    dirty,
  };
}
