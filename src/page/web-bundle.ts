import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the page's sources are and where `npm run build` puts its bundle (git-ignored), from
 * the package root. Both this module and the bundled server sit two folders deep.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const WEB_SOURCE_DIR = path.join(ROOT, 'src/page/browser');
export const WEB_BUNDLE_DIR = path.join(ROOT, 'dist/web');
export const MANIFEST = 'manifest.json';

/** What the server needs to know about a bundle: the page and its assets by file name. */
export interface WebManifest {
  page: 'index.html';
  assets: string[];
}
