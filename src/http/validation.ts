import { Ajv, type ErrorObject, type SchemaValidateFunction, type ValidateFunction } from 'ajv';
import type { FastifySchemaCompiler } from 'fastify';
import { repeatedNameMessage, repeatedNames } from '../glossary/name-repeats.ts';
import { CATEGORIES, VISIBLE_CHARACTER } from '../glossary/term.ts';
import { RequestValidationError } from './errors.ts';
import type { ValidationFault } from './wire.ts';

/**
 * Request validation with the contract's error vocabulary (Pydantic v1, as the original
 * FastAPI service spoke it). Ajv checks the TypeBox schemas; `toFaults` turns its errors into
 * `{loc, msg, type, input}` objects, one per fault, every fault reported.
 */

const ajv = new Ajv({
  allErrors: true,
  strict: false,
  coerceTypes: false,
  useDefaults: false,
  removeAdditional: false,
});
ajv.addFormat('well-formed-unicode', {
  type: 'string',
  validate: (value: string) => value.isWellFormed(),
});

/**
 * A keyword of the term's schema (an OpenAPI extension, so the document stays valid) for the
 * rule JSON Schema cannot say: no name of a term twice (glossary/name-repeats.ts). It reports
 * each repeating name at its own place (`["body","avoid",1]`), after the term's other faults.
 */
export const DISTINCT_NAMES = 'x-distinct-names';
/** The fault `type` of a name a term already has (the rule within one term). */
export const NAME_REPEATED = 'value_error.name.repeated';
const distinctNames: SchemaValidateFunction = (enabled, data, _parent, where) => {
  if (enabled !== true) return true;
  const repeats = repeatedNames(data);
  if (repeats.length === 0) return true;
  distinctNames.errors = repeats.map((repeat) => ({
    keyword: DISTINCT_NAMES,
    instancePath: `${where?.instancePath ?? ''}/${repeat.kind}/${repeat.index}`,
    params: {},
    message: repeatedNameMessage(repeat.text, repeat.earlier),
  }));
  return false;
};
ajv.addKeyword({
  keyword: DISTINCT_NAMES,
  type: 'object',
  schemaType: 'boolean',
  errors: true,
  validate: distinctNames,
});

type Location = 'body' | 'query' | 'path' | 'header';
const LOCATION: Record<string, Location> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

export const PERMITTED_CATEGORIES = CATEGORIES.map((c) => `'${c}'`).join(', ');
const MAX_INPUT_DEPTH = 32;

/**
 * Fastify's schema compiler: every request part is checked with the same Ajv instance. Each
 * schema is compiled when its first request comes, not as the routes register: compiling them
 * all was a tenth of the service's start before it answers /healthz.
 */
export const compileRequestValidator: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const location = LOCATION[httpPart ?? 'body'] ?? 'body';
  let compiled: ValidateFunction | undefined;
  // Path and query values arrive as strings; only decimal numbers become numbers (whole ones
  // where the schema wants an integer).
  const numberKeys = location === 'body' ? [] : numberProperties(schema);
  return (data: unknown) => {
    const value = numberKeys.length > 0 ? parseNumbers(data, numberKeys) : data;
    compiled ??= ajv.compile(schema as object);
    const validate = compiled;
    if (validate(value)) return { value };
    // `input` is what the client sent: the path or query string, not the number read from it.
    return { error: new RequestValidationError(toFaults(validate.errors ?? [], data, location)) };
  };
};

/**
 * Validates one bulk item against a compiled schema. Unlike a request body, a `null` item is
 * there: it is reported as not a dict, not as missing.
 */
export function checkItem(validate: ValidateFunction, value: unknown): ValidationFault[] {
  return validate(value)
    ? []
    : toFaults(validate.errors ?? [], value, 'body', { nullIsMissing: false });
}

export function compileBodySchema(schema: object): ValidateFunction {
  return ajv.compile(schema);
}

const WHOLE = /^[+-]?\d{1,400}$/;
const DECIMAL = /^[+-]?\d{1,400}(?:\.\d{1,400})?$/;

/** The properties the schema wants as numbers, each with the text that may become one. */
function numberProperties(schema: unknown): [string, RegExp][] {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties;
  if (!properties) return [];
  return Object.keys(properties).flatMap((key): [string, RegExp][] => {
    const type = properties[key]?.type;
    return type === 'integer' ? [[key, WHOLE]] : type === 'number' ? [[key, DECIMAL]] : [];
  });
}

function parseNumbers(data: unknown, keys: readonly [string, RegExp][]): unknown {
  if (typeof data !== 'object' || data === null) return data;
  const copy: Record<string, unknown> = { ...data };
  for (const [key, pattern] of keys) {
    const raw = copy[key];
    if (typeof raw === 'string' && pattern.test(raw)) copy[key] = Number(raw);
  }
  return copy;
}

export function toFaults(
  errors: readonly ErrorObject[],
  data: unknown,
  location: Location,
  // A request body that is absent or JSON `null` is a missing body, as in FastAPI.
  { nullIsMissing = location === 'body' }: { nullIsMissing?: boolean } = {},
): ValidationFault[] {
  const faults: ValidationFault[] = [];
  const seen = new Set<string>();
  // A wrongly typed value is reported once, as a type error, whatever else it breaks.
  const typeErrorPaths = new Set(
    errors.filter((e) => e.keyword === 'type').map((e) => e.instancePath),
  );
  const tooLongLists = errors
    .filter((e) => e.keyword === 'maxItems')
    .map((e) => ({ path: e.instancePath, limit: Number(e.params.limit) }));
  for (const error of errors) {
    if (error.keyword !== 'type' && typeErrorPaths.has(error.instancePath)) continue;
    // Items past a list's limit are not reported one by one: the list is too long.
    if (tooLongLists.some((list) => isBeyondLimit(error.instancePath, list))) continue;
    const fault = toFault(error, data, location, nullIsMissing);
    if (!fault) continue;
    const key = `${JSON.stringify(fault.loc)} ${fault.type}`;
    if (seen.has(key)) continue;
    seen.add(key);
    faults.push(fault);
  }
  return faults;
}

function isBeyondLimit(path: string, list: { path: string; limit: number }): boolean {
  if (!path.startsWith(`${list.path}/`)) return false;
  return Number(path.slice(list.path.length + 1).split('/')[0]) >= list.limit;
}

function toFault(
  error: ErrorObject,
  data: unknown,
  location: Location,
  nullIsMissing: boolean,
): ValidationFault | null {
  const path = pointerSegments(error.instancePath);
  const loc: (string | number)[] = [location, ...path];
  const input = valueAt(data, path);
  const withInput = (type: string, msg: string): ValidationFault => {
    const fault: ValidationFault = { loc, msg, type };
    const safe = presentable(input);
    if (safe !== undefined) fault.input = safe;
    return fault;
  };
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      if (path.length === 0 && (data === null || data === undefined) && nullIsMissing) {
        return { loc: [location], msg: 'field required', type: 'value_error.missing' };
      }
      return {
        loc: [...loc, String(params.missingProperty)],
        msg: 'field required',
        type: 'value_error.missing',
      };
    case 'type':
      return typeFault(params.type, withInput, path.length === 0 && nullIsMissing, data);
    case 'minimum':
    case 'maximum':
      return rangeFault(error.keyword, Number(params.limit), withInput);
    case 'enum':
      return withInput(
        'type_error.enum',
        `value is not a valid enumeration member; permitted: ${permitted(params.allowedValues)}`,
      );
    case 'pattern':
      // A text field's one pattern (a visible character) stands for "not blank", as FastAPI
      // says it; any other is a form the value does not have.
      if (params.pattern !== VISIBLE_CHARACTER) {
        return withInput(
          'value_error.str.regex',
          `string does not match regex "${params.pattern}"`,
        );
      }
      return withInput(
        'value_error.any_str.min_length',
        'ensure this value has at least 1 characters',
      );
    case 'minLength':
      return withInput(
        'value_error.any_str.min_length',
        'ensure this value has at least 1 characters',
      );
    case 'maxLength':
      return withInput(
        'value_error.any_str.max_length',
        `ensure this value has at most ${params.limit} characters`,
      );
    case 'maxItems':
      return withInput(
        'value_error.list.max_items',
        `ensure this value has at most ${params.limit} items`,
      );
    case 'format':
      return withInput(
        'value_error.str.unicode',
        'string is not well-formed Unicode (it holds a lone surrogate)',
      );
    case DISTINCT_NAMES:
      return withInput(NAME_REPEATED, error.message ?? 'a name is repeated');
    default:
      return withInput('value_error', error.message ?? 'invalid value');
  }
}

/**
 * Beyond ±(2^53 − 1) a number is not an integer a client can send exactly (the contract says
 * `type_error.integer`); inside it, a bound such as `limit`'s 1-1000 is Pydantic's range error.
 */
function rangeFault(
  keyword: 'minimum' | 'maximum',
  limit: number,
  withInput: (type: string, msg: string) => ValidationFault,
): ValidationFault {
  if (Math.abs(limit) === Number.MAX_SAFE_INTEGER) {
    return withInput('type_error.integer', 'value is not a valid integer');
  }
  return keyword === 'minimum'
    ? withInput(
        'value_error.number.not_ge',
        `ensure this value is greater than or equal to ${limit}`,
      )
    : withInput('value_error.number.not_le', `ensure this value is less than or equal to ${limit}`);
}

function permitted(values: unknown): string {
  return Array.isArray(values) ? values.map((v) => `'${v}'`).join(', ') : PERMITTED_CATEGORIES;
}

function typeFault(
  expected: unknown,
  withInput: (type: string, msg: string) => ValidationFault,
  missingRoot: boolean,
  data: unknown,
): ValidationFault {
  const types = Array.isArray(expected) ? expected : [expected];
  if (missingRoot && (data === null || data === undefined)) {
    const fault = withInput('value_error.missing', 'field required');
    delete fault.input;
    return fault;
  }
  if (types.includes('integer'))
    return withInput('type_error.integer', 'value is not a valid integer');
  if (types.includes('string')) return withInput('type_error.str', 'str type expected');
  if (types.includes('array')) return withInput('type_error.list', 'value is not a valid list');
  if (types.includes('object')) return withInput('type_error.dict', 'value is not a valid dict');
  return withInput('type_error', `value is not of type ${types.join(' or ')}`);
}

function pointerSegments(pointer: string): (string | number)[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((raw) => {
      const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~');
      return /^(0|[1-9]\d*)$/.test(segment) ? Number(segment) : segment;
    });
}

function valueAt(data: unknown, path: readonly (string | number)[]): unknown {
  let value = data;
  for (const segment of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = Object.hasOwn(value, segment) ? (value as Record<string, unknown>)[segment] : undefined;
  }
  return value;
}

/** The offending value, unless it is nested too deeply to echo back safely. */
function presentable(value: unknown): unknown {
  return depthOf(value, MAX_INPUT_DEPTH) > MAX_INPUT_DEPTH ? undefined : value;
}

function depthOf(value: unknown, limit: number): number {
  let depth = 0;
  let level: unknown[] = [value];
  while (level.length > 0 && depth <= limit) {
    const next: unknown[] = [];
    for (const item of level) {
      if (typeof item === 'object' && item !== null)
        for (const child of Object.values(item)) next.push(child);
    }
    if (next.length === 0) break;
    depth += 1;
    level = next;
  }
  return depth;
}
