import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { MANIFEST, WEB_SOURCE_DIR, type WebManifest } from './web-bundle.ts';

/** One file of the page: where it is in the bundle, and what the server says about it. */
export interface WebFile {
  /** From the bundle's folder. */
  file: string;
  contentType: string;
  /** A hash of its bytes: the same file has the same tag in every build and every process. */
  etag: string;
}

export interface WebPage {
  page: WebFile;
  assets: Map<string, WebFile>;
  /** True when a page source is newer than the bundle (edited since the last build). */
  stale: boolean;
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/**
 * Reads the bundle that `npm install` (or `npm run build`) built; the service never builds
 * anything itself, so it starts from a read-only checkout. A missing bundle fails start-up
 * with a message saying how to build it.
 */
export function loadWebPage(dir: string): WebPage {
  const manifestFile = path.join(dir, MANIFEST);
  if (!fs.existsSync(manifestFile)) {
    throw new Error(`the web page is not built (${dir} is missing): run \`npm run build\``);
  }
  const stale = newestSource() > fs.statSync(manifestFile).mtimeMs;
  return { ...readBundle(dir), stale };
}

/**
 * A build may swap in a fresh bundle while this process reads: a file gone missing means
 * "read the new bundle", so try again.
 */
function readBundle(dir: string, attempts = 3): Omit<WebPage, 'stale'> {
  try {
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, MANIFEST), 'utf8')) as WebManifest;
    const assets = new Map<string, WebFile>();
    for (const name of manifest.assets)
      assets.set(name, readWebFile(dir, path.join('assets', name)));
    return { page: readWebFile(dir, manifest.page), assets };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempts <= 1) throw error;
    return readBundle(dir, attempts - 1);
  }
}

/** The newest page source's time; 0 where the sources are not shipped. */
function newestSource(): number {
  let newest = 0;
  if (!fs.existsSync(WEB_SOURCE_DIR)) return 0;
  for (const name of fs.readdirSync(WEB_SOURCE_DIR)) {
    newest = Math.max(newest, fs.statSync(path.join(WEB_SOURCE_DIR, name)).mtimeMs);
  }
  return newest;
}

function readWebFile(dir: string, file: string): WebFile {
  const body = fs.readFileSync(path.join(dir, file));
  // Built beside it; a bundle without it is not this build's.
  fs.accessSync(path.join(dir, `${file}.gz`));
  const contentType = CONTENT_TYPES[path.extname(file)];
  if (!contentType) throw new Error(`the web page bundle holds an unexpected file: ${file}`);
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
  return { file, contentType, etag };
}
