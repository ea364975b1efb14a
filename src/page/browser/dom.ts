type Child = Node | string | null | undefined | false;

/** Creates an element with attributes and children; text is always set as text, never as HTML. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  for (const child of children) {
    if (child !== null && child !== undefined && child !== false) element.append(child);
  }
  return element;
}

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page lacks #${id}`);
  return element as T;
}

/**
 * Gives a button that was disabled while a write went on its focus back, if the focus was lost
 * meanwhile: a question asked during the write (a token, a taken name) hands the focus back,
 * when it closes, to the element focused before it, and a disabled button cannot take it, so
 * the focus stays on the closed question's button (then falls to the page's start). Nothing
 * happens when the focus is elsewhere or the button has gone.
 */
export function refocusIfLost(button: HTMLElement): void {
  const active = document.activeElement;
  const lost =
    active === null ||
    active === document.body ||
    !active.isConnected ||
    active.closest('dialog:not([open])') !== null;
  if (lost && button.isConnected) button.focus();
}
