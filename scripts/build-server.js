// `npm run build:server` (also run by `prepare` and before `npm start`): bundles the service's
// own modules into one file so production runs plain JavaScript. Running the TypeScript
// through tsx costs a module-loader thread of ~30 MB and a transpile at every start.
// Dependencies stay external (loaded from node_modules). The bundle sits two folders deep,
// like the sources, so paths resolved from `import.meta.url` find the same project root.
import { build } from 'esbuild';

const SERVER_BUNDLE = 'dist/service/server.js';

try {
  await build({
    entryPoints: ['src/server.ts'],
    outfile: SERVER_BUNDLE,
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    logLevel: 'warning',
    absWorkingDir: new URL('..', import.meta.url).pathname,
  });
} catch (error) {
  process.stderr.write(`glossary: cannot build the server: ${error.message}\n`);
  process.exit(1);
}
