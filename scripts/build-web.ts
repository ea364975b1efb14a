import { buildWebPage, WEB_BUNDLE_DIR } from '../src/page/build-page.ts';

/** `npm run build:web` (and the `prepare` script of `npm install` / `npm ci`). */
try {
  const manifest = await buildWebPage();
  process.stdout.write(`web page built into ${WEB_BUNDLE_DIR}: ${manifest.assets.join(', ')}\n`);
} catch (error) {
  process.stderr.write(`glossary: cannot build the web page: ${(error as Error).message}\n`);
  process.exit(1);
}
