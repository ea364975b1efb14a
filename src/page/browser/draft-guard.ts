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

  // Back and Forward cannot be cancelled: with a draft at stake the page asks, and when the
  // person keeps editing it goes back to the entry the form was opened on (that move is not
  // asked about). The Navigation API, where there is one, tells how far that is; without it
  // the move was most likely Back, so the way back is forward.
  let returning = false;
  let openedAt: number | undefined;
  const position = () =>
    (window as { navigation?: { currentEntry?: { index: number } } }).navigation?.currentEntry
      ?.index;
  new MutationObserver(() => {
    if (dialog.open) openedAt = position();
  }).observe(dialog, { attributes: true, attributeFilter: ['open'] });
  window.addEventListener('popstate', async () => {
    if (returning) {
      returning = false;
      return;
    }
    if (!dialog.open) return;
    if (await mayLeave()) dialog.close();
    else {
      const now = position();
      const steps = openedAt !== undefined && now !== undefined ? openedAt - now : 1;
      if (steps === 0) return;
      returning = true;
      window.history.go(steps);
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
