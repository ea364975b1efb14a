/**
 * A word-by-word difference of two texts, for the history (what a change did to a definition).
 * Hand-written rather than a library: the page needs one function, a longest common
 * subsequence over words, and a bundled diff package would add more than the whole page's
 * script weighs today.
 */

export type Piece = { kind: 'same' | 'added' | 'removed'; text: string };

/** Words with the spaces after them, so joining the pieces gives back each text. */
function tokens(text: string): string[] {
  return text.match(/\S+\s*|\s+/gu) ?? [];
}

/**
 * Above this many cells of the table (500 words changed on each side: 30-55 ms in Node here), the
 * middle is shown as removed then added, whole: a history of twenty such rewrites stays quick.
 */
const MAX_CELLS = 250_000;

/** The pieces that turn `before` into `after`: runs of kept, removed and added words. */
export function wordDiff(before: string, after: string): Piece[] {
  const a = tokens(before);
  const b = tokens(after);
  // Most edits touch a few words: the common start and end stay out of the table.
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA -= 1;
    endB -= 1;
  }
  const pieces: Piece[] = [];
  const push = (kind: Piece['kind'], text: string) => {
    const last = pieces.at(-1);
    if (last?.kind === kind) last.text += text;
    else if (text) pieces.push({ kind, text });
  };
  push('same', a.slice(0, start).join(''));
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  const n = midA.length;
  const m = midB.length;
  if (n * m > MAX_CELLS) {
    push('removed', midA.join(''));
    push('added', midB.join(''));
  } else {
    // lengths[i * (m + 1) + j]: the longest common run of midA from i and midB from j.
    const width = m + 1;
    const lengths = new Uint32Array((n + 1) * width);
    for (let i = n - 1; i >= 0; i -= 1) {
      for (let j = m - 1; j >= 0; j -= 1) {
        lengths[i * width + j] =
          midA[i] === midB[j]
            ? (lengths[(i + 1) * width + j + 1] ?? 0) + 1
            : Math.max(lengths[(i + 1) * width + j] ?? 0, lengths[i * width + j + 1] ?? 0);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && midA[i] === midB[j]) {
        push('same', midA[i] as string);
        i += 1;
        j += 1;
      } else if (
        i < n &&
        (j === m || (lengths[(i + 1) * width + j] ?? 0) >= (lengths[i * width + j + 1] ?? 0))
      ) {
        push('removed', midA[i] as string);
        i += 1;
      } else {
        push('added', midB[j] as string);
        j += 1;
      }
    }
  }
  push('same', a.slice(endA).join(''));
  return pieces;
}
