/**
 * The errors a store raises, in the store's own words. The HTTP layer maps them to answers
 * (`StoreUnavailableError` is a 503); the entry point prints a `SchemaError` as one line.
 */

/** The store cannot serve the request now (disk full, read-only, database unreachable). */
export class StoreUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailableError';
  }
}

/** The store is still being opened (a large file's integrity check at start): not ready yet. */
export class StoreOpeningError extends StoreUnavailableError {
  override name = 'StoreOpeningError';
}

/** The storage exists but this release must not use it (foreign, newer, corrupt, read-only). */
export class SchemaError extends Error {
  override name = 'SchemaError';
}
