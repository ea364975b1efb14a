import assert from 'node:assert/strict';

/**
 * Waits until `condition` holds, asking again every `everyMs`, and fails the test, saying
 * `what` did not happen, if it still does not hold after `withinMs`. The one way a test waits
 * for what happens in its own time (a merge when the store is quiet, a page redrawn, a pool
 * finding its dropped connections): asked again until it holds, never a fixed sleep before an
 * assertion.
 */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  what: string | (() => string),
  { withinMs = 15_000, everyMs = 20 }: { withinMs?: number; everyMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await condition())) {
    if (Date.now() > deadline) {
      assert.fail(`never happened: ${typeof what === 'string' ? what : what()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
