import type { TermStore } from '../glossary/term-store.ts';

/** Where a timed operation's duration goes: one observer per operation, made on first call. */
export type OperationObserver = (operation: string) => (seconds: number) => void;

/** Methods that are not timed. */
const UNTIMED = new Set(['watchChanges']);

/**
 * The store with every method timed under its name, for any backend: the metrics hand in
 * where a duration goes. Each method is wrapped once, on first use: a call pays for a clock
 * reading and a promise's `finally`, no more. A list is timed until its last term was read.
 */
export function timedStore(store: TermStore, observerFor: OperationObserver): TermStore {
  const wrapped = new Map<string, unknown>();
  return new Proxy(store, {
    get(target, property, receiver) {
      if (typeof property !== 'string') return Reflect.get(target, property, receiver);
      const known = wrapped.get(property);
      if (known !== undefined) return known;
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      // Not an operation on the storage: it answers at once with a function to stop watching.
      if (UNTIMED.has(property)) return value.bind(target);
      // Made on the first call: a method only looked at shows no series.
      let observer: ((seconds: number) => void) | undefined;
      const observe = (start: number) => {
        observer ??= observerFor(property);
        observer((performance.now() - start) / 1000);
      };
      const timedMethod =
        property === 'list'
          ? async function* (...args: unknown[]) {
              const start = performance.now();
              try {
                yield* value.apply(target, args);
              } finally {
                observe(start);
              }
            }
          : (...args: unknown[]) => {
              const start = performance.now();
              const result = value.apply(target, args);
              if (!(result instanceof Promise)) return result;
              return result.finally(() => observe(start));
            };
      wrapped.set(property, timedMethod);
      return timedMethod;
    },
  });
}
