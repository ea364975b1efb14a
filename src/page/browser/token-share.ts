/**
 * The token, asked for once per browser session rather than once per tab. It is kept in each
 * tab's sessionStorage (so a reload keeps it and it never reaches the disk's long-lived
 * storage) and shared between the open tabs of the glossary through a BroadcastChannel
 * (same origin only): a token given in one tab reaches the others, a new tab asks the open
 * ones for it, and "Forget my token" forgets it in every tab. When the last tab of the
 * glossary closes, the token is gone. Not localStorage: it would outlive the session (the page
 * cannot clear it when the browser closes). Not a cookie: it would travel with every request.
 */

const KEY = 'glossary-token';
/** How long a tab waits for an open tab's answer before asking the person. */
const WAIT_MS = 400;

type Message = { kind: 'ask' } | { kind: 'token'; value: string } | { kind: 'forget' };

const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(KEY) : null;
const listeners = new Set<() => void>();
const changed = () => {
  for (const listener of listeners) listener();
};

channel?.addEventListener('message', (event: MessageEvent<Message>) => {
  const message = event.data;
  if (message.kind === 'ask') {
    const held = sessionStorage.getItem(KEY);
    if (held) channel.postMessage({ kind: 'token', value: held } satisfies Message);
  } else if (message.kind === 'token') {
    if (sessionStorage.getItem(KEY) === message.value) return;
    sessionStorage.setItem(KEY, message.value);
    changed();
  } else if (message.kind === 'forget') {
    sessionStorage.removeItem(KEY);
    changed();
  }
});

export const sessionToken = {
  get: (): string | null => sessionStorage.getItem(KEY),
  set(value: string): void {
    sessionStorage.setItem(KEY, value);
    channel?.postMessage({ kind: 'token', value } satisfies Message);
    changed();
  },
  clear(): void {
    sessionStorage.removeItem(KEY);
    channel?.postMessage({ kind: 'forget' } satisfies Message);
    changed();
  },
  /** Calls `listener` whenever the token changes, here or in another tab. */
  onChange(listener: () => void): void {
    listeners.add(listener);
  },
};

/**
 * The token, from this tab or, when it has none, from another open tab of the glossary: null
 * when none answers in time (then the person is asked).
 */
export function tokenFromOtherTabs(): Promise<string | null> {
  const held = sessionToken.get();
  if (held || !channel) return Promise.resolve(held);
  return new Promise((resolve) => {
    const done = () => {
      window.clearTimeout(timer);
      channel.removeEventListener('message', answer);
      resolve(sessionToken.get());
    };
    const answer = (event: MessageEvent<Message>) => {
      if (event.data.kind === 'token') done();
    };
    const timer = window.setTimeout(done, WAIT_MS);
    channel.addEventListener('message', answer);
    channel.postMessage({ kind: 'ask' } satisfies Message);
  });
}
