import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildWebPage, MANIFEST, WEB_SOURCE_DIR, type WebManifest } from './build-page.ts';

/** One file of the page, held in memory: the bundle is a few tens of kilobytes. */
export interface WebFile {
  body: Buffer;
  gzipped: Buffer;
  contentType: string;
  etag: string;
}

export interface WebPage {
  page: WebFile;
  assets: Map<string, WebFile>;
  /** True when the bundle was missing or stale and was built at start-up. */
  built: boolean;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/**
 * Reads the bundle that `npm install` built. When it is missing (installed with
 * `--ignore-scripts`), builds it now rather than serving a service without its page; if that
 * fails too, start-up fails with a message saying how to build it. When the sources are newer
 * than the bundle (edited since the install), rebuilds it, keeping the old one if that fails.
 */
export async function loadWebPage(dir: string): Promise<WebPage> {
  let built = false;
  const manifestFile = path.join(dir, MANIFEST);
  const missing = !fs.existsSync(manifestFile);
  if (missing || newestSource() > fs.statSync(manifestFile).mtimeMs) {
    try {
      await buildWebPage(dir);
      built = true;
    } catch (error) {
      if (missing) {
        throw new Error(
          `the web page bundle is missing from ${dir} and could not be built (${(error as Error).message}); run \`npm run build:web\``,
        );
      }
    }
  }
  return { ...readBundle(dir), built };
}

/**
 * Another process may swap in a fresh bundle while this one reads (both rebuilt stale
 * sources at once): a file gone missing means "read the new bundle", so try again.
 */
function readBundle(dir: string, attempts = 3): Omit<WebPage, 'built'> {
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, MANIFEST), 'utf8')) as WebManifest;
    const assets = new Map<string, WebFile>();
    for (const name of manifest.assets) {
      assets.set(name, readWebFile(path.join(dir, 'assets', name)));
    }
    return { page: readWebFile(path.join(dir, manifest.page)), assets };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempts <= 1) throw error;
    return readBundle(dir, attempts - 1);
  }
}

function newestSource(): number {
  let newest = 0;
  for (const name of fs.readdirSync(WEB_SOURCE_DIR)) {
    newest = Math.max(newest, fs.statSync(path.join(WEB_SOURCE_DIR, name)).mtimeMs);
  }
  return newest;
}

function readWebFile(file: string): WebFile {
  const body = fs.readFileSync(file);
  const contentType = CONTENT_TYPES[path.extname(file)];
  if (!contentType) throw new Error(`the web page bundle holds an unexpected file: ${file}`);
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
  return { body, gzipped: gzipSync(body, { level: 9 }), contentType, etag };
}
