#!/usr/bin/env node
// The `glossary` command: the bundle `npm run build` writes (run at `npm install`).
try {
  await import('../dist/cli/main.js');
} catch (error) {
  if (
    error?.code !== 'ERR_MODULE_NOT_FOUND' ||
    !String(error.message).includes('dist/cli/main.js')
  ) {
    throw error;
  }
  process.stderr.write('glossary: not built yet: run `npm run build` (npm install does)\n');
  process.exit(1);
}
