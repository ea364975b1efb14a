import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import {
  MANIFEST,
  WEB_BUNDLE_DIR,
  WEB_SOURCE_DIR,
  type WebManifest,
} from '../src/page/web-bundle.ts';

/**
 * Bundles `src/page/browser` into `outDir`: `index.html` plus content-hashed, minified script and
 * stylesheet (so they can be cached for a year), each with its gzip form. The bundle is written to a sibling folder
 * and renamed into place, so a server starting at the same time never reads half of it.
 */
export async function buildWebPage(outDir: string = WEB_BUNDLE_DIR): Promise<WebManifest> {
  const parent = path.dirname(outDir);
  fs.mkdirSync(parent, { recursive: true });
  const staging = fs.mkdtempSync(path.join(parent, `.${path.basename(outDir)}-`));
  fs.chmodSync(staging, 0o755);
  try {
    const result = await build({
      entryPoints: [path.join(WEB_SOURCE_DIR, 'main.ts')],
      bundle: true,
      minify: true,
      format: 'esm',
      target: ['es2022'],
      platform: 'browser',
      entryNames: '[name]-[hash]',
      outdir: path.join(staging, 'assets'),
      metafile: true,
      logLevel: 'silent',
      legalComments: 'none',
    });
    const assets = Object.keys(result.metafile.outputs).map((file) => path.basename(file));
    const script = assets.find((file) => file.endsWith('.js'));
    const style = assets.find((file) => file.endsWith('.css'));
    if (!script || !style) throw new Error('the bundle lacks its script or its stylesheet');

    const shell = fs.readFileSync(path.join(WEB_SOURCE_DIR, 'index.html'), 'utf8');
    const page = shell
      .replace('/assets/main.css', `/assets/${style}`)
      .replace('/assets/main.js', `/assets/${script}`);
    if (page.includes('/assets/main.')) throw new Error('index.html names an unknown asset');
    fs.writeFileSync(path.join(staging, 'index.html'), page);

    // Each file beside its gzip form, which the server sends to a client that accepts gzip.
    for (const file of ['index.html', ...assets.map((asset) => path.join('assets', asset))]) {
      const written = path.join(staging, file);
      fs.writeFileSync(`${written}.gz`, gzipSync(fs.readFileSync(written), { level: 9 }));
    }
    const manifest: WebManifest = { page: 'index.html', assets };
    fs.writeFileSync(path.join(staging, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    // Swap rather than delete-then-write, so the folder is missing for as short a time as
    // possible while another process may be reading it.
    const previous = `${staging}-previous`;
    try {
      fs.renameSync(outDir, previous);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    try {
      fs.renameSync(staging, outDir);
    } catch (error) {
      // Another process built the same sources into place first: its bundle is as good.
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
    } finally {
      fs.rmSync(previous, { recursive: true, force: true });
    }
    return manifest;
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}
