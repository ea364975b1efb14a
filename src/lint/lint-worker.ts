import { parentPort, workerData } from 'node:worker_threads';
import type { WorkerData, WorkerReply, WorkerRequest } from './lint-files.ts';
import { lintOne } from './lint-one.ts';
import { NameMatcher } from './name-matcher.ts';

/** A thread of `glossary lint` (see lint-files.ts): lints the batches of files it is sent. */
const { terms, cwd, fix } = workerData as WorkerData;
const matcher = new NameMatcher(terms);

parentPort?.on('message', async ({ files }: WorkerRequest) => {
  const results: WorkerReply['results'] = [];
  for (const file of files) results.push(await lintOne(file, cwd, matcher, fix));
  parentPort?.postMessage({ results } satisfies WorkerReply);
});
