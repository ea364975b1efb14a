import fc from 'fast-check';

/**
 * Values for a JSON Schema, as fast-check arbitraries: mostly values the schema accepts, built
 * from the keywords the service's document uses (type, enum, properties/required, items,
 * min/max, minLength/maxLength/pattern, anyOf/oneOf, `$ref` into the document's
 * components), and now and then any JSON value, so the error answers are exercised too.
 */

type Schema = Record<string, unknown>;

export function arbitraryFor(
  schema: unknown,
  components: Record<string, Schema>,
  depth = 0,
): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 4, arbitrary: valid(schema as Schema, components, depth) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  );
}

function valid(
  schema: Schema,
  components: Record<string, Schema>,
  depth: number,
): fc.Arbitrary<unknown> {
  const ref = schema.$ref;
  if (typeof ref === 'string') {
    const target = components[ref.replace('#/components/schemas/', '')];
    if (!target) throw new Error(`unknown reference ${ref}`);
    return valid(target, components, depth);
  }
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const choices = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (choices) return fc.oneof(...choices.map((choice) => valid(choice, components, depth)));
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type];
  return fc.oneof(...types.map((type) => ofType(String(type), schema, components, depth)));
}

function ofType(
  type: string,
  schema: Schema,
  components: Record<string, Schema>,
  depth: number,
): fc.Arbitrary<unknown> {
  switch (type) {
    case 'integer':
      return fc.integer({
        min: Math.max(Number(schema.minimum ?? -1e6), Number.MIN_SAFE_INTEGER),
        max: Math.min(Number(schema.maximum ?? 1e6), Number.MAX_SAFE_INTEGER),
      });
    case 'string': {
      const text = fc.string({
        minLength: Number(schema.minLength ?? 0),
        maxLength: Math.min(Number(schema.maxLength ?? 40), 40),
      });
      const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern, 'u') : null;
      return pattern ? text.filter((value) => pattern.test(value)) : text;
    }
    case 'array':
      return fc.array(
        depth > 3 ? fc.constant(null) : arbitraryFor(schema.items ?? {}, components, depth + 1),
        {
          minLength: Number(schema.minItems ?? 0),
          maxLength: Math.min(Number(schema.maxItems ?? 5), 5),
        },
      );
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      const required = (schema.required ?? []) as string[];
      const shape = Object.fromEntries(
        Object.entries(properties).map(([name, property]) => [
          name,
          arbitraryFor(property, components, depth + 1),
        ]),
      );
      return fc.record(shape, { requiredKeys: required.filter((name) => name in shape) });
    }
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'number':
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}
