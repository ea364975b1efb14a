/**
 * Where the terms are kept and how, in words the configuration can name without loading a
 * backend: `config.ts` imports this file, never a backend folder, so a PostgreSQL deployment
 * never loads the SQLite store (nor its native module).
 */

/** Where the terms are kept: an SQLite file (or `:memory:`) or a PostgreSQL database. */
export type StoreLocation = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

/** How SQLite syncs a commit: `full` and `extra` survive a power loss, `normal` a crash. */
export const SQLITE_SYNCHRONOUS = ['full', 'extra', 'normal'] as const;
export type SqliteSynchronous = (typeof SQLITE_SYNCHRONOUS)[number];
