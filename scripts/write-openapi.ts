import fs from 'node:fs';
import { loadConfig } from '../src/config.ts';
import { buildApp } from '../src/http/app.ts';
import { openSqliteStore } from '../src/store/sqlite/store.ts';

/**
 * Writes the OpenAPI document the service serves at /openapi.json to the file given as the
 * first argument (stdout without one), built from the app itself on a throwaway store, so the
 * linter checks exactly what clients get.
 */
const store = openSqliteStore(':memory:');
const app = await buildApp({ config: loadConfig({}), store, logger: false });
await app.ready();
const response = await app.inject({ method: 'GET', url: '/openapi.json' });
await app.close();
await store.close();
const text = `${JSON.stringify(response.json(), null, 2)}\n`;
if (process.argv[2]) fs.writeFileSync(process.argv[2], text);
else process.stdout.write(text);
