// `npm run build` (also npm's `prepare`, so `npm install` and `npm ci` run it): everything the
// service runs is built here, once. The service and the `glossary` command are each bundled
// into one file of plain JavaScript (their dependencies stay in node_modules); the web page
// into content-hashed assets. Nothing is built at start-up, so a read-only checkout starts.
import path from 'node:path';
import { build } from 'esbuild';
import { buildWebPage } from './build-page.ts';

const root = path.resolve(import.meta.dirname, '..');

/** Each bundle sits two folders deep, like its sources, so paths from `import.meta.url` agree. */
const PROGRAMS = [
  { entry: 'src/server.ts', out: 'dist/service/server.js' },
  { entry: 'src/cli/main.ts', out: 'dist/cli/main.js' },
  // `glossary lint`'s threads: a bundle of its own, beside the command that starts them.
  { entry: 'src/lint/lint-worker.ts', out: 'dist/cli/lint-worker.js' },
];

try {
  await Promise.all([
    buildWebPage(),
    ...PROGRAMS.map(({ entry, out }) =>
      build({
        entryPoints: [entry],
        // Split at dynamic imports: a store's code and its driver (pg, better-sqlite3) load
        // only when that store is chosen, in chunks beside the program (in its folder, so that
        // paths from import.meta.url agree).
        outdir: path.dirname(out),
        entryNames: path.basename(out, '.js'),
        chunkNames: '[name]-[hash]',
        splitting: true,
        bundle: true,
        packages: 'external',
        platform: 'node',
        format: 'esm',
        target: 'node22',
        sourcemap: true,
        logLevel: 'warning',
        absWorkingDir: root,
      }),
    ),
  ]);
} catch (error) {
  process.stderr.write(`glossary: cannot build: ${(error as Error).message}\n`);
  process.exit(1);
}
