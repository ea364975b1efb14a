import { errors } from './errors.ts';

/**
 * The last touches to the OpenAPI document @fastify/swagger builds from the route schemas, so
 * that it reads as a document written for people and lints clean:
 *
 * - A schema with a `title` is a named schema: it is listed once under `components.schemas`
 *   and referenced wherever it is used (two different schemas with one title are a bug, and
 *   refuse to build). Untitled schemas stay inline.
 * - A response header declared `required: true` (see `schemas/errors.ts`) carries that flag in
 *   its JSON Schema, where it is invalid: it moves to the header object, where it means
 *   "always sent".
 * - HEAD operations (made from GET routes) describe the same statuses and headers, but no body,
 *   and are named after their GET (`listTermsHead`): @fastify/swagger's `listTerms-head` is
 *   not an identifier, so generated clients would each mangle it their own way.
 * - A PATCH body is documented as `application/merge-patch+json` too.
 */

type Json = Record<string, unknown>;
type Header = { required?: boolean; schema?: { required?: unknown } };
type Response = { headers?: Record<string, Header>; content?: Record<string, { schema?: Json }> };
type Operation = {
  operationId?: string;
  parameters?: { schema?: Json }[];
  requestBody?: { content?: Record<string, { schema?: Json }> };
  responses?: Record<string, Response>;
};
type Document = {
  components?: { schemas?: Record<string, Json>; securitySchemes?: Record<string, Json> };
  paths?: Record<string, Record<string, Operation>>;
};

export const API_VERSION = '1.0.0';

const notFound = JSON.stringify({ detail: errors.routeNotFound().detail });
const notAllowed = JSON.stringify({ detail: errors.methodNotAllowed('GET').detail });

/**
 * The document's `info`. Two answers belong to no operation and are told here: 404 for a path
 * no route has, and 405 for a method a path does not list. So is `OPTIONS`: a browser sends
 * the CORS preflight itself, so listed as operations it would give every path of a generated
 * client (openapi-typescript) an `options` call no code should make, and each would need its
 * own id, tags and answers to lint clean (Spectral), while telling a client nothing it can use
 * (Prism, put in front of the service, answers preflights itself).
 */
export const DOCUMENT_INFO = {
  title: 'Technical Terms Glossary',
  version: API_VERSION,
  license: { name: 'MIT', identifier: 'MIT' },
  description: `A glossary of technical terms. Validation errors are 422 with a list of \`{loc, msg, type, input}\` faults; every other error is \`{"detail": "..."}\`, and each operation lists the answers it can give. Two answers belong to no operation: an unknown path is answered \`404 ${notFound}\`, and a method a path does not list \`405 ${notAllowed}\`, with an \`Allow\` header naming the methods it takes. \`OPTIONS\` on any path answers \`204\` with the CORS headers, a browser's preflight or not; it is not listed as an operation. While no write token exists, everything is open; see the \`bearerToken\` security scheme.`,
};

export const BEARER_SCHEME = 'bearerToken';

/** Given to @fastify/swagger, which must know the schemes operations name in `security`. */
export const SECURITY_SCHEMES = {
  [BEARER_SCHEME]: {
    type: 'http' as const,
    scheme: 'bearer',
    description:
      'A token made with `glossary token create NAME`. Needed for writes once any token exists, and for reads too with READ_ACCESS=token; while no token exists, everything is open.',
  },
};

/**
 * Operations' `security`: open (`{}`) or with a token. Writes need one once any token exists;
 * reads only with READ_ACCESS=token.
 */
export const WRITE_SECURITY: { [scheme: string]: string[] }[] = [{}, { [BEARER_SCHEME]: [] }];
export const READ_SECURITY = WRITE_SECURITY;

export function finishDocument<T extends object>(document: T): T {
  const doc = document as Document;
  const named = new Map<string, { schema: Json; text: string }>();
  const hoist = (schema: Json | undefined): Json | undefined =>
    schema === undefined ? undefined : (hoistNamed(schema, named) as Json);
  for (const [path, operations] of Object.entries(doc.paths ?? {})) {
    for (const [method, operation] of Object.entries(operations)) {
      for (const parameter of operation.parameters ?? []) {
        parameter.schema = hoist(parameter.schema);
      }
      for (const media of Object.values(operation.requestBody?.content ?? {})) {
        media.schema = hoist(media.schema);
      }
      // A PATCH body is a JSON merge patch, under either name (see routes/term-edits.ts).
      const json = operation.requestBody?.content?.['application/json'];
      if (method === 'patch' && json && operation.requestBody?.content) {
        operation.requestBody.content = {
          'application/merge-patch+json': json,
          ...operation.requestBody.content,
        };
      }
      if (method === 'head' && operations.get?.operationId) {
        operation.operationId = `${operations.get.operationId}Head`;
      }
      for (const response of Object.values(operation.responses ?? {})) {
        liftRequired(response);
        if (method === 'head') delete response.content;
        for (const media of Object.values(response.content ?? {}))
          media.schema = hoist(media.schema);
      }
      if (!operation.responses) throw new Error(`${method} ${path} documents no response`);
    }
  }
  doc.components = {
    ...doc.components,
    schemas: Object.fromEntries(
      [...named].sort(([a], [b]) => a.localeCompare(b)).map(([name, { schema }]) => [name, schema]),
    ),
  };
  return document;
}

/** Replaces, bottom-up, every titled schema by a reference to its component. */
function hoistNamed(value: unknown, named: Map<string, { schema: Json; text: string }>): unknown {
  if (Array.isArray(value)) return value.map((item) => hoistNamed(item, named));
  if (typeof value !== 'object' || value === null) return value;
  const copy: Json = {};
  for (const [key, child] of Object.entries(value)) {
    // `examples` and `enum` hold data, not schemas.
    copy[key] = key === 'examples' || key === 'enum' ? child : hoistNamed(child, named);
  }
  const title = copy.title;
  if (typeof title !== 'string' || !isSchema(copy)) return copy;
  // @fastify/swagger moves a parameter's description to the parameter, and a response's
  // examples to its media type: the shape is what must agree, the component keeps them.
  const { description, examples, ...shape } = copy;
  const text = JSON.stringify(shape);
  const seen = named.get(title);
  if (seen && seen.text !== text) {
    throw new Error(
      `two different schemas are named ${title} in the OpenAPI document: ${seen.text} and ${text}`,
    );
  }
  const schema = seen?.schema ?? copy;
  if (schema.description === undefined && description !== undefined)
    schema.description = description;
  if (schema.examples === undefined && examples !== undefined) schema.examples = examples;
  named.set(title, { schema, text });
  return { $ref: `#/components/schemas/${title}` };
}

function isSchema(value: Json): boolean {
  return ['type', 'properties', 'items', 'anyOf', 'oneOf', 'enum', '$ref'].some(
    (key) => key in value,
  );
}

function liftRequired(response: Response): void {
  for (const header of Object.values(response.headers ?? {})) {
    if (header.schema?.required === true) {
      delete header.schema.required;
      header.required = true;
    }
  }
}
