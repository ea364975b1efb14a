/**
 * @fastify/swagger copies a response header's schema as it is, so a header declared with
 * `required: true` (see `schemas/errors.ts`) would carry that flag inside its JSON Schema,
 * where it is invalid. This moves it to the OpenAPI header object, where it means "always sent".
 */
type Header = { required?: boolean; schema?: { required?: unknown } };
type Operation = { responses?: Record<string, { headers?: Record<string, Header> }> };

export function liftRequiredHeaders<T extends object>(document: T): T {
  const paths = (document as { paths?: Record<string, Record<string, Operation>> }).paths ?? {};
  for (const operations of Object.values(paths)) {
    for (const operation of Object.values(operations)) {
      for (const response of Object.values(operation.responses ?? {})) {
        for (const header of Object.values(response.headers ?? {})) {
          if (header.schema?.required === true) {
            delete header.schema.required;
            header.required = true;
          }
        }
      }
    }
  }
  return document;
}
