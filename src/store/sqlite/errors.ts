import { SchemaError, StoreUnavailableError } from '../errors.ts';

/** SQLite result codes that mean "the storage cannot do this now", not "the request is bad". */
const UNAVAILABLE = /^SQLITE_(FULL|READONLY|IOERR|BUSY|LOCKED|CANTOPEN|NOTADB|CORRUPT|PROTOCOL)/;

/** Runs `work`, raising a storage failure of SQLite's as the store's `StoreUnavailableError`. */
export function guard<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && UNAVAILABLE.test(code)) {
      throw new StoreUnavailableError(`sqlite: ${(error as Error).message}`, { cause: error });
    }
    throw error;
  }
}

/** SQLite's and the file system's own messages ("unable to open database file") say no file. */
export function namingFile(error: unknown, file: string): Error {
  if (error instanceof SchemaError) return error;
  const message = (error as Error).message ?? String(error);
  return message.includes(file)
    ? (error as Error)
    : new Error(`${file}: ${message}`, { cause: error });
}

/** Whether a failure (as `guard` raised it) is SQLite's "the file is read-only". */
export function isReadOnly(error: unknown): boolean {
  const code = ((error as Error).cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_READONLY');
}
