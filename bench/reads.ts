import { BROAD_WORD, oneTypoQuery, WORDS } from './terms.ts';

/** The reads measured on each store, each a path to ask (random where it says so). */

export type ReadKey = 'byId' | 'selective' | 'oneTypo' | 'broadQ' | 'broadSearch' | 'category';

export interface Read {
  key: ReadKey;
  name: string;
  path: () => string;
  connections?: number;
}

const randomInt = (min: number, max: number) => min + Math.floor(Math.random() * (max - min));

/** From here on, a number of the name is five digits or more: a selective search. */
export const selectiveFrom = (terms: number) => Math.max(1000, Math.floor(terms / 10));

export function oneTypoPath(terms: number): string {
  return `/terms?q=${encodeURIComponent(oneTypoQuery(selectiveFrom(terms), terms))}`;
}

export function readsFor(o: { terms: number; searchConnections: number }): Read[] {
  const from = selectiveFrom(o.terms);
  const search = o.searchConnections;
  return [
    {
      key: 'byId',
      name: 'GET /terms/{id} (random id)',
      path: () => `/terms/${randomInt(0, o.terms)}`,
    },
    {
      key: 'selective',
      name: `GET /terms?search= selective (${search} conn.)`,
      path: () => `/terms?search=${randomInt(from, o.terms)}`,
      connections: search,
    },
    {
      key: 'oneTypo',
      name: `GET /terms?q= one typo (${search} conn.)`,
      path: () => oneTypoPath(o.terms),
      connections: search,
    },
    {
      key: 'broadQ',
      name: `GET /terms?q=WORD&limit=20 broad (${search} conn.)`,
      path: () => `/terms?q=${WORDS[randomInt(0, WORDS.length)]}&limit=20`,
      connections: search,
    },
    {
      key: 'broadSearch',
      name: `GET /terms?search=${BROAD_WORD}&limit=100 (broad)`,
      path: () => `/terms?search=${BROAD_WORD}&limit=100`,
    },
    {
      key: 'category',
      name: 'GET /terms?category=devops&limit=100',
      path: () => '/terms?category=devops&limit=100',
    },
  ];
}
