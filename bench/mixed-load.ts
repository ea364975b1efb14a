import type autocannon from 'autocannon';
import { bodySize, type CannonOptions, cannon, medianOf } from './cannon.ts';
import type { CpuMeter } from './cpu.ts';
import type { Measure } from './report.ts';
import { MIXED_QUERIES } from './terms.ts';

/**
 * A day's mixed load (issue 33): 70% GET /terms/{id} of a random term, 20% `q` of one of eight
 * words (one-typo and broad, `limit=20`), 10% single POST /terms of a new term, chosen at random
 * for every request. Beside it the floor: Fastify with the log line answering the same mix of
 * body sizes (GET only: it has no store to write to).
 */

export interface Mixed {
  /** Average answer size of each kind: by id (and a created term), a `q` page. */
  bodyBytes: { byId: number; q: number };
  service: Measure;
  framework: Measure;
}

const randomInt = (max: number) => Math.floor(Math.random() * max);
const qPath = () =>
  `/terms?q=${encodeURIComponent(MIXED_QUERIES[randomInt(MIXED_QUERIES.length)] as string)}&limit=20`;

export function mixedRequest(
  terms: number,
  newTerm: () => unknown,
): () => Partial<autocannon.Request> {
  return () => {
    const r = Math.random();
    if (r < 0.7) return { path: `/terms/${randomInt(terms)}` };
    if (r < 0.9) return { path: qPath() };
    return {
      path: '/terms',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(newTerm()),
    };
  };
}

export async function mixedLoad(
  base: string,
  frameworkBase: string,
  o: CannonOptions & { runs: number; terms: number },
  newTerm: () => unknown,
  meters: { service: CpuMeter; framework: CpuMeter },
): Promise<Mixed> {
  const bodyBytes = {
    byId: await bodySize(base, () => `/terms/${randomInt(o.terms)}`),
    q: await bodySize(base, qPath),
  };
  const floorRequest = () => ({
    path: `/bytes/${Math.random() < 0.2 ? bodyBytes.q : bodyBytes.byId}`,
  });
  const service: Measure[] = [];
  const framework: Measure[] = [];
  for (let run = 0; run < o.runs; run += 1) {
    process.stderr.write(`mixed load: run ${run + 1}/${o.runs}\n`);
    service.push(
      await cannon(base, o, mixedRequest(o.terms, newTerm), o.connections, meters.service),
    );
    framework.push(await cannon(frameworkBase, o, floorRequest, o.connections, meters.framework));
  }
  return { bodyBytes, service: medianOf(service), framework: medianOf(framework) };
}
