/**
 * Deterministic synthetic terms: names from a small vocabulary plus the number, so a number of
 * five or more digits is a selective search (a handful of names hold it) and a vocabulary word
 * a broad one (about one name in eight).
 */
export const WORDS = [
  'cache',
  'queue',
  'router',
  'kernel',
  'schema',
  'index',
  'render',
  'deploy',
  'socket',
  'token',
  'stream',
  'buffer',
  'proxy',
  'cluster',
  'lambda',
  'vector',
];
const CATEGORIES = ['frontend', 'backend', 'devops', 'docs-as-code'] as const;

export function term(i: number) {
  const a = WORDS[i % 16] as string;
  const b = WORDS[Math.floor(i / 16) % 16] as string;
  return {
    id: i,
    term: `${a[0]?.toUpperCase()}${a.slice(1)} ${b} ${i}`,
    definition: `Definition of the ${a} ${b} number ${i}: a concept that ${b} systems use to reach their ${a} when they scale.`,
    category: CATEGORIES[i % 4] as string,
    see_also: i > 0 ? [i - 1, (i * 7) % (i + 1)] : [],
  };
}

export const BROAD_WORD = 'cluster';
