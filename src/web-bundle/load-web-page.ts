import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildWebPage, MANIFEST, type WebManifest } from './build-web-page.ts';

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
  /** True when the bundle was missing and was built at start-up. */
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
 * fails too, start-up fails with a message saying how to build it.
 */
export async function loadWebPage(dir: string): Promise<WebPage> {
  let built = false;
  if (!fs.existsSync(path.join(dir, MANIFEST))) {
    try {
      await buildWebPage(dir);
      built = true;
    } catch (error) {
      throw new Error(
        `the web page bundle is missing from ${dir} and could not be built (${(error as Error).message}); run \`npm run build:web\``,
      );
    }
  }
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, MANIFEST), 'utf8')) as WebManifest;
  const assets = new Map<string, WebFile>();
  for (const name of manifest.assets) {
    assets.set(name, readWebFile(path.join(dir, 'assets', name)));
  }
  return { page: readWebFile(path.join(dir, manifest.page)), assets, built };
}

function readWebFile(file: string): WebFile {
  const body = fs.readFileSync(file);
  const contentType = CONTENT_TYPES[path.extname(file)];
  if (!contentType) throw new Error(`the web page bundle holds an unexpected file: ${file}`);
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
  return { body, gzipped: gzipSync(body, { level: 9 }), contentType, etag };
}
