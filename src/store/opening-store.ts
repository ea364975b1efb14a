import type { TermStore } from '../glossary/term-store.ts';
import { StoreOpeningError } from './errors.ts';

/**
 * A store usable while it is still being opened, so that the service can listen, and answer
 * `/healthz`, before a large SQLite file's integrity check has ended (seconds at a million
 * terms). Until `opening` settles, `check()` (readiness) refuses as unavailable and every other
 * operation waits for the store and then runs on it; nothing reaches the storage before the
 * store is open. Once open, each operation goes straight to the store. If opening fails, the
 * operations that waited fail with its error, and the entry point stops the process.
 */
export interface OpeningStore extends TermStore {
  /** Settles when the store is open (or failed to open). */
  readonly opened: Promise<TermStore>;
}

export function openingStore(backend: string, opening: Promise<TermStore>): OpeningStore {
  let store: TermStore | undefined;
  let failure: unknown;
  const opened = opening.then(
    (open) => {
      store = open;
      return open;
    },
    (error) => {
      failure = error;
      throw error;
    },
  );
  // Nobody may be waiting: a failure is the entry point's to report, not an unhandled one.
  opened.catch(() => undefined);
  const methods = new Map<PropertyKey, unknown>();

  function method(name: keyof TermStore): unknown {
    switch (name) {
      case 'check':
        return () => {
          if (store) return store.check();
          if (failure !== undefined) return Promise.reject(failure);
          return Promise.reject(new StoreOpeningError('the store is still being opened'));
        };
      case 'close':
        // Closed while opening: once it is open, it closes (a failed opening left nothing open).
        return () =>
          store
            ? store.close()
            : opened.then(
                (open) => open.close(),
                () => undefined,
              );
      case 'list':
        return (...args: Parameters<TermStore['list']>) =>
          store
            ? store.list(...args)
            : (async function* () {
                yield* (await opened).list(...args);
              })();
      case 'watchChanges':
        return (listener: () => void) => {
          if (store) return store.watchChanges(listener);
          let stop: (() => void) | undefined;
          let stopped = false;
          opened.then(
            (open) => {
              if (!stopped) stop = open.watchChanges(listener);
            },
            () => undefined,
          );
          return () => {
            stopped = true;
            stop?.();
          };
        };
      default:
        return (...args: unknown[]) => {
          const call = (open: TermStore) =>
            (open[name] as (...a: unknown[]) => Promise<unknown>).apply(open, args);
          return store ? call(store) : opened.then(call);
        };
      // Optional operations never get here before the store is open (see OPTIONAL).
    }
  }

  const direct = new Map<PropertyKey, unknown>();
  return new Proxy({ backend, opened } as OpeningStore, {
    get(target, property, receiver) {
      if (property === 'backend' || property === 'opened' || typeof property === 'symbol') {
        return Reflect.get(target, property, receiver);
      }
      if (store) {
        // Open: the store's own operations, as it has them.
        let found = direct.get(property);
        if (found === undefined) {
          const value = Reflect.get(store, property);
          if (typeof value !== 'function') return value;
          found = value.bind(store);
          direct.set(property, found);
        }
        return found;
      }
      // Not a store's operation: the store is no promise, and has nothing to serialise. An
      // optional operation is absent until the store is open (its callers do without it).
      if (property === 'then' || property === 'toJSON' || OPTIONAL.has(property)) {
        return undefined;
      }
      let found = methods.get(property);
      if (found === undefined) {
        found = method(property as keyof TermStore);
        methods.set(property, found);
      }
      return found;
    },
  });
}

/** TermStore's optional operations (`rankAtOnce?(...)`): a store may not have them. */
const OPTIONAL = new Set<PropertyKey>(['rankAtOnce', 'firstOfLevels']);
