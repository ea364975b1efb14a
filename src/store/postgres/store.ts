import type pg from 'pg';
import { anonymousChange } from '../../glossary/history.ts';
import type { TermStore, Warn } from '../../glossary/term-store.ts';
import { SchemaError } from '../errors.ts';
import { storedTerm } from '../term-names.ts';
import { KEEP_REMOVALS_MS } from '../vocabulary-removals.ts';
import { WriteHealth } from '../write-health.ts';
import { importTerms } from './bulk-import.ts';
import { ChangeWatch } from './change-watch.ts';
import { batchedCreates } from './create-batches.ts';
import { describeError, redactUrl } from './errors.ts';
import { FeedReads } from './feed.ts';
import { keptCounts } from './kept-counts.ts';
import { linkReads } from './link-reads.ts';
import { ListSlots, listSlotsFor } from './list-slots.ts';
import { migrate } from './migrate.ts';
import { connect, createPool, type PoolOptions, query } from './pool.ts';
import { readMethods } from './reads.ts';
import { termValues } from './term-rows.ts';
import { tokenMethods } from './tokens.ts';
import { probeWrite, write } from './transaction.ts';
import { changeLogPruning, type PendingListsOptions, pendingListUpkeep } from './upkeep.ts';
import { createVocabulary } from './vocabulary.ts';
import { webhookMethods } from './webhooks.ts';
import { removeTerm, restoreTerm, updateTerm } from './writes.ts';

/**
 * The shared store: one PostgreSQL database behind any number of stateless instances. Every
 * write is one short transaction (one statement for the terms, one for the revision, COMMIT),
 * so a 201/207 is sent only after COMMIT has returned, which with the default
 * `synchronous_commit = on` means the WAL is flushed.
 */

export interface PostgresStoreOptions extends PoolOptions {
  /**
   * Told of a failure the store works around (the change log not pruned, the search indexes'
   * pending lists not merged); the caller logs it.
   */
  warn?: Warn;
  /** When the search indexes' pending lists are merged (upkeep.ts); the default suits. */
  indexUpkeep?: PendingListsOptions;
}

export async function openPostgresStore(
  url: string,
  options: PostgresStoreOptions = {},
): Promise<TermStore> {
  const pool = createPool(url, options);
  await prepare(pool, redactUrl(url));
  const warn = options.warn ?? (() => undefined);
  const vocabulary = createVocabulary();
  const slots = new ListSlots(
    listSlotsFor(options.poolSize ?? 10),
    options.connectionTimeoutMs ?? 5000,
  );
  const kept = keptCounts(
    <R extends Record<string, unknown>>(text: string, values?: unknown[], name?: string) =>
      query<R>(pool, text, values, name),
  );
  const keepRemovalsMs = options.indexUpkeep?.keepRemovalsMs ?? KEEP_REMOVALS_MS;
  const pendingLists = pendingListUpkeep(
    (sql) => onClient(pool, (client) => client.query(sql)),
    warn,
    options.indexUpkeep,
    () => onClient(pool, (client) => vocabulary.purge(client, keepRemovalsMs)),
  );
  const pruning = changeLogPruning(() => kept.prune(), warn);
  const health = new WriteHealth(() => {
    pruning.wrote();
    pendingLists.wrote();
  });
  const remember = <T>(work: () => Promise<T>) => health.runAsync(work);
  // The feed's reads tell the watch what they held back; its re-checks read the horizon.
  const watch: ChangeWatch = new ChangeWatch(url, () => feed.check(), warn);
  const feed = new FeedReads(pool, (sighting) => watch.seen(sighting));
  let closed = false;

  return {
    backend: 'postgres',
    ...readMethods(pool, slots, vocabulary, kept),
    ...linkReads(pool),
    ...tokenMethods(pool, remember),
    changesSince: (since, limit) => feed.changesSince(since, limit),
    latestRevision: () => feed.latestRevision(),
    watchChanges: (listener) => watch.watch(listener),
    ...webhookMethods(pool, remember),
    create: batchedCreates(pool, vocabulary, remember),
    async importMany(terms, change = anonymousChange()) {
      if (terms.length === 0) return [];
      const stored = terms.map(storedTerm);
      const values = stored.map(termValues);
      return remember(() =>
        write(pool, async (client) => {
          const result = await importTerms(client, stored, values, change, vocabulary);
          return { result, changed: result.includes('created') };
        }),
      );
    },
    async update(id, edit, change) {
      return remember(() =>
        write(pool, async (client) => {
          const result = await updateTerm(client, id, edit, change, vocabulary);
          return { result, changed: result !== undefined };
        }),
      );
    },
    async remove(id, confirm, change) {
      return remember(() =>
        write(pool, async (client) => {
          const result = await removeTerm(client, id, confirm, change, vocabulary);
          return { result, changed: result !== undefined };
        }),
      );
    },
    async restore(id, revision, confirm, change) {
      return remember(() =>
        write(pool, async (client) => {
          const result = await restoreTerm(client, id, revision, confirm, change, vocabulary);
          return { result, changed: typeof result === 'object' };
        }),
      );
    },
    async check() {
      await query(pool, 'SELECT 1 FROM terms LIMIT 1');
      if (health.failing) await remember(() => probeWrite(pool));
    },
    async close() {
      if (closed) return;
      closed = true;
      watch.close();
      await Promise.all([pruning.close(), pendingLists.close()]);
      await pool.end();
    },
  };
}

/** Connects once and migrates: a database that cannot be reached or prepared is refused. */
async function prepare(pool: pg.Pool, where: string): Promise<void> {
  let client: pg.PoolClient;
  try {
    client = await pool.connect();
  } catch (error) {
    await pool.end();
    throw new Error(`cannot connect to PostgreSQL at ${where}: ${describeError(error)}`, {
      cause: error,
    });
  }
  try {
    await migrate(client, where);
    client.release();
  } catch (error) {
    client.release(true);
    await pool.end();
    if (error instanceof SchemaError) throw error;
    throw new Error(`cannot prepare the schema in ${where}: ${describeError(error)}`, {
      cause: error,
    });
  }
}

/** Upkeep's work on a pooled connection, its failure as the driver raised it. */
async function onClient(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<unknown>,
): Promise<void> {
  const client = await connect(pool);
  try {
    await work(client);
    client.release();
  } catch (error) {
    // Not back to the pool inside a transaction the failure left open.
    client.release(true);
    throw error;
  }
}
