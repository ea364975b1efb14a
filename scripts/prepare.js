// npm's `prepare` script (after `npm install` and `npm ci`): `npm run build`. npm also runs it
// for `npm install --package-lock-only` and for installs without the development dependencies,
// when there is nothing to build with: then it says so, and `npm run build` builds later.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

const root = new URL('..', import.meta.url);
const installed = ['tsx', 'esbuild'].every((name) =>
  fs.existsSync(new URL(`node_modules/${name}/package.json`, root)),
);
if (!installed) {
  process.stdout.write('not built: the build tools are not installed; run `npm run build` later\n');
  process.exit(0);
}
const build = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts'], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(build.status ?? 1);
