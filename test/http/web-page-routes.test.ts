import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gunzipSync, gzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { webPageRoutes } from '../../src/page/page-routes.ts';
import { startApp, type TestApp } from '../helpers/app.ts';
import { backends, tempDir } from '../helpers/backends.ts';

const PAGE_BUDGET = 100 * 1024;

function assetPaths(html: string): string[] {
  return [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1] ?? '');
}

for (const backend of backends()) {
  describe(`web page routes (${backend.name})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startApp(backend);
    });
    after(() => t.close());

    test('GET / serves the HTML page, revalidated by ETag, with a same-origin CSP', async () => {
      const page = await t.app.inject({ method: 'GET', url: '/' });
      assert.equal(page.statusCode, 200);
      assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(page.headers['cache-control'], 'no-cache');
      assert.match(page.body, /<title>[^<]*Glossary[^<]*<\/title>/);
      assert.match(String(page.headers['content-security-policy']), /default-src 'self'/);
      const etag = String(page.headers.etag);
      const again = await t.app.inject({
        method: 'GET',
        url: '/',
        headers: { 'if-none-match': etag },
      });
      assert.equal(again.statusCode, 304);
      assert.equal(again.body, '');
      for (const header of [`"other", W/${etag}`, '*']) {
        const listed = await t.app.inject({
          method: 'GET',
          url: '/',
          headers: { 'if-none-match': header },
        });
        assert.equal(listed.statusCode, 304, header);
      }
      const changed = await t.app.inject({
        method: 'GET',
        url: '/',
        headers: { 'if-none-match': '"an older page"' },
      });
      assert.equal(changed.statusCode, 200);
    });

    test('assets have content-hashed names, their content type and a one-year cache', async () => {
      const page = await t.app.inject({ method: 'GET', url: '/' });
      const assets = assetPaths(page.body);
      assert.deepEqual(assets.map((asset) => path.extname(asset)).sort(), ['.css', '.js']);
      for (const asset of assets) {
        assert.match(asset, /^\/assets\/main-[A-Z0-9]{8}\.(js|css)$/);
        const response = await t.app.inject({ method: 'GET', url: asset });
        assert.equal(response.statusCode, 200);
        const type = asset.endsWith('.js') ? 'text/javascript' : 'text/css';
        assert.equal(response.headers['content-type'], `${type}; charset=utf-8`);
        assert.equal(response.headers['cache-control'], 'public, max-age=31536000, immutable');
      }
    });

    test('the whole page (HTML, script, stylesheet) is under 100 KB gzipped', async () => {
      const page = await t.app.inject({ method: 'GET', url: '/' });
      let total = gzipSync(page.rawPayload).length;
      for (const asset of assetPaths(page.body)) {
        const response = await t.app.inject({ method: 'GET', url: asset });
        total += gzipSync(response.rawPayload).length;
      }
      assert.ok(total < PAGE_BUDGET, `${total} bytes gzipped`);
    });

    test('a client accepting gzip gets the page gzipped', async () => {
      const plain = await t.app.inject({ method: 'GET', url: '/' });
      const zipped = await t.app.inject({
        method: 'GET',
        url: '/',
        headers: { 'accept-encoding': 'gzip, deflate' },
      });
      assert.equal(zipped.headers['content-encoding'], 'gzip');
      assert.equal(zipped.headers.vary, 'accept-encoding');
      assert.equal(gunzipSync(zipped.rawPayload).toString(), plain.body);
    });

    test('an unknown asset or path is the JSON 404 Not Found', async () => {
      for (const url of ['/assets/main-XXXXXXXX.js', '/index.htm', '/assets/../package.json']) {
        const response = await t.app.inject({ method: 'GET', url });
        assert.equal(response.statusCode, 404, url);
        assert.deepEqual(response.json(), { detail: 'Not Found' });
      }
    });

    test('the page is not an API path: another method on it is the JSON 404', async () => {
      for (const [method, url] of [
        ['POST', '/'],
        ['DELETE', '/'],
        ['PUT', '/assets/main-XXXXXXXX.js'],
      ] as const) {
        const response = await t.app.inject({ method, url, payload: {} });
        assert.equal(response.statusCode, 404, `${method} ${url}`);
        assert.deepEqual(response.json(), { detail: 'Not Found' });
      }
    });

    test('HEAD / answers the headers of GET /', async () => {
      const response = await t.app.inject({ method: 'HEAD', url: '/' });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], 'text/html; charset=utf-8');
      assert.equal(response.body, '');
    });

    test('the page and its assets are not in the OpenAPI document', async () => {
      const document = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
      const paths = Object.keys(document.paths);
      assert.ok(paths.includes('/terms'));
      assert.ok(!paths.some((url) => url === '/' || url.startsWith('/assets')), paths.join());
    });
  });
}

describe('web page bundle missing at start-up', () => {
  test('the service builds nothing: it refuses to start and says how to build', async () => {
    const dir = path.join(tempDir(), 'web');
    const app = Fastify({ logger: false });
    await assert.rejects(
      async () => {
        await app.register(webPageRoutes, { dir });
      },
      {
        message: `the web page is not built (${dir} is missing): run \`npm run build\``,
      },
    );
    assert.equal(fs.existsSync(dir), false);
    await app.close();
  });
});
