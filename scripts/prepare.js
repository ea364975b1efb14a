// npm's `prepare` script (after `npm install` and `npm ci`): bundles the web page and the
// server. npm also runs it for `npm install --package-lock-only`, when no dependency is
// installed: there is nothing to build with then; `npm start` builds the server first anyway,
// and the server builds the page at start-up if it is missing.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

const root = new URL('..', import.meta.url);
const installed = ['tsx', 'esbuild'].every((name) =>
  fs.existsSync(new URL(`node_modules/${name}/package.json`, root)),
);
if (!installed) {
  process.stdout.write('web page and server not built: the dependencies are not installed yet\n');
  process.exit(0);
}
for (const args of [['--import', 'tsx', 'scripts/build-web.ts'], ['scripts/build-server.js']]) {
  const build = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}
