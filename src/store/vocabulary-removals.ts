/**
 * How both stores let the typo vocabulary forget: a word no live term has is marked removed,
 * numbered like an addition so that every process drops it from memory, and the removal itself
 * is purged once it is older than this (a process that has not looked since reads the
 * vocabulary afresh).
 */

/** How long a removal stays for other processes to learn of it. */
export const KEEP_REMOVALS_MS = 10 * 60_000;

/** Removals purged in one step (one short statement, or write transaction on SQLite). */
export const PURGE_STEP = 5000;
