/**
 * JSON Merge Patch, RFC 7396 §2: an object patch sets each of its members on the target
 * (recursively for objects), `null` removes the member, and anything else (an array, a
 * string, a number) replaces the target whole. The result is a new value; neither input is
 * changed. Keys such as `__proto__` stay plain data (own properties, never prototypes).
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const result: Record<string, unknown> = {};
  if (isObject(target)) {
    for (const key of Object.keys(target)) define(result, key, target[key]);
  }
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    if (value === null) delete result[key];
    else define(result, key, mergePatch(result[key], value));
  }
  return result;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function define(object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}
