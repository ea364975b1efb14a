import fs from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';

/**
 * Holds every response a test sees through `startApp` against the OpenAPI document the app
 * serves at /openapi.json: the status must be documented for that operation, a body must have
 * a documented content type and match its schema, documented required headers must be
 * there, and a `Warning` header must be documented on that answer. A response for a path or
 * method the document does not describe (an unknown route, a 405 for a method the path lacks,
 * the hidden /docs and /openapi.json) is not checked.
 */

interface MediaType {
  schema?: object;
}
interface ResponseObject {
  content?: Record<string, MediaType>;
  headers?: Record<string, { required?: boolean }>;
}
interface Operation {
  responses: Record<string, ResponseObject>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, object> };
}

export class OpenApiViolation extends Error {
  override name = 'OpenApiViolation';
}

export interface OpenApiStats {
  checked: number;
  skipped: number;
}

/** Responses checked and skipped by every checker in this test process. */
export const openApiStats: OpenApiStats = { checked: 0, skipped: 0 };

// OPENAPI_CHECK_LOG=file collects the counts of every test process, for measuring coverage.
const statsFile = process.env.OPENAPI_CHECK_LOG;
if (statsFile) {
  process.on('exit', () => {
    if (openApiStats.checked + openApiStats.skipped === 0) return;
    fs.appendFileSync(statsFile, `${JSON.stringify(openApiStats)}\n`);
  });
}

/** Headers the service sends on some answers only, each documented where it is sent. */
const SOMETIMES_SENT = ['warning'];

const checkers = new Map<string, Checker>();

type Checker = (options: InjectOptions, response: LightMyRequestResponse) => void;

/** Makes `app.inject(options)` check each response against the served document. */
export async function enforceOpenApi(app: FastifyInstance): Promise<void> {
  await app.ready();
  // What GET /openapi.json serves, read without a request (a request would count against a
  // rate limit under test).
  const text = JSON.stringify(app.swagger());
  let check = checkers.get(text);
  if (!check) {
    check = compileChecker(JSON.parse(text) as Document);
    checkers.set(text, check);
  }
  const checker = check;
  const inject = app.inject.bind(app) as (
    options: InjectOptions,
  ) => Promise<LightMyRequestResponse>;
  const wrapped = (options?: InjectOptions | string, callback?: unknown) => {
    // Only the promise form with options is checked; the chain and callback forms pass through.
    if (options === undefined || callback !== undefined) {
      return (app.inject as unknown as (...args: unknown[]) => unknown).call(
        app,
        options,
        callback,
      );
    }
    const opts: InjectOptions = typeof options === 'string' ? { url: options } : options;
    return inject(opts).then((response) => {
      checker(opts, response);
      return response;
    });
  };
  Object.defineProperty(app, 'inject', { value: wrapped, configurable: true, writable: true });
}

function compileChecker(document: Document): Checker {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  // The named schemas, where the document's `$ref`s point (`#/components/schemas/Term`).
  ajv.addSchema({ $id: 'openapi.json', components: document.components ?? {} });
  const validators = new Map<object, ValidateFunction>();
  const validatorFor = (schema: object) => {
    let validate = validators.get(schema);
    if (!validate) {
      validate = ajv.compile(
        JSON.parse(
          JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/'),
        ) as object,
      );
      validators.set(schema, validate);
    }
    return validate;
  };
  const routes = Object.entries(document.paths)
    .map(([template, operations]) => ({
      template,
      operations,
      pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
      literal: !template.includes('{'),
    }))
    .sort((a, b) => Number(b.literal) - Number(a.literal));

  return (options, response) => {
    const method = (options.method ?? 'GET').toLowerCase();
    const url = typeof options.url === 'string' ? options.url : String(options.path ?? '/');
    let path = url.split('?')[0] ?? '/';
    if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
    let decoded: string;
    try {
      decoded = decodeURIComponent(path);
    } catch {
      decoded = path;
    }
    const route = routes.find((r) => r.pattern.test(path) || r.pattern.test(decoded));
    const operation = route?.operations[method];
    if (!route || !operation) {
      openApiStats.skipped++;
      return;
    }
    const where = `${method.toUpperCase()} ${route.template} -> ${response.statusCode}`;
    const documented =
      operation.responses[String(response.statusCode)] ?? operation.responses.default;
    if (!documented) {
      throw new OpenApiViolation(`${where}: status not in the OpenAPI document`);
    }
    for (const [name, header] of Object.entries(documented.headers ?? {})) {
      if (header.required && response.headers[name.toLowerCase()] === undefined) {
        throw new OpenApiViolation(`${where}: documented header ${name} is missing`);
      }
    }
    // A header only some answers carry must be documented on each answer that sends it.
    for (const name of SOMETIMES_SENT) {
      const listed = Object.keys(documented.headers ?? {}).some(
        (key) => key.toLowerCase() === name,
      );
      if (response.headers[name] !== undefined && !listed) {
        throw new OpenApiViolation(`${where}: header ${name} is sent but not documented`);
      }
    }
    openApiStats.checked++;
    if (method === 'head' || response.body === '') return;
    const contentType = String(response.headers['content-type'] ?? '')
      .split(';')[0]
      ?.trim();
    const media = documented.content?.[contentType ?? ''];
    if (!media) {
      throw new OpenApiViolation(`${where}: content type '${contentType}' is not documented`);
    }
    // A download (`format: binary`) is bytes, whatever its media type says.
    if (!media.schema || (media.schema as { format?: string }).format === 'binary') return;
    const validate = validatorFor(media.schema);
    if (!validate(JSON.parse(response.body))) {
      throw new OpenApiViolation(
        `${where}: body does not match the documented schema: ${ajv.errorsText(validate.errors)}; body ${response.body.slice(0, 300)}`,
      );
    }
  };
}
