import { anonymousChange } from '../../glossary/history.ts';
import type { TermStore, Warn } from '../../glossary/term-store.ts';
import { groupCommit } from '../group-commit.ts';
import type { SqliteSynchronous } from '../location.ts';
import { WriteHealth } from '../write-health.ts';
import { backgroundCheckpoint } from './background-checkpoint.ts';
import { ChangeWatch } from './change-watch.ts';
import { changeReads } from './changes.ts';
import { guard, namingFile } from './errors.ts';
import { historyReads } from './history.ts';
import { inspectExistingFileAside } from './inspect-file.ts';
import { linkReads } from './link-reads.ts';
import { openFile, probeWrite } from './open-file.ts';
import { carryCounts, carryPages, keptCounts, keptPages, readMethods } from './reads.ts';
import { SnapshotReaders } from './snapshot-readers.ts';
import { tokenMethods } from './tokens.ts';
import { createIndexUpkeep, type IndexUpkeepOptions } from './upkeep.ts';
import { createVocabulary } from './vocabulary.ts';
import { webhookMethods } from './webhooks.ts';
import { createWrites, type Writes } from './writes.ts';

/**
 * The embedded store: one SQLite file in WAL mode. With `synchronous=FULL` (the default) a
 * commit returns only after the WAL is fsynced, so an acknowledged write survives a crash and
 * a power loss. Writers take the lock up front (`BEGIN IMMEDIATE`), so several processes on
 * one file serialise instead of failing half-way.
 */

export interface SqliteStoreOptions {
  synchronous?: SqliteSynchronous;
  busyTimeoutMs?: number;
  /**
   * When the FTS5 indexes are merged and the WAL checkpointed once quiet (upkeep.ts); the
   * defaults suit the service.
   */
  indexUpkeep?: IndexUpkeepOptions;
  /** The file was looked at just before (`openCheckedSqliteStore`); not again. */
  inspected?: boolean;
  /** Told of a failure the store works around (a quiet checkpoint that failed); the caller logs it. */
  warn?: Warn;
}

/**
 * The store, the existing file looked at first with its page-by-page check on a thread of its
 * own (`inspectExistingFileAside`): the service answers `/healthz` while a large file is
 * checked, and opens nothing for writing until the check has passed.
 */
export async function openCheckedSqliteStore(
  file: string,
  options: SqliteStoreOptions = {},
): Promise<TermStore> {
  try {
    await inspectExistingFileAside(file);
  } catch (error) {
    throw namingFile(error, file);
  }
  return openSqliteStore(file, { ...options, inspected: true });
}

export function openSqliteStore(file: string, options: SqliteStoreOptions = {}): TermStore {
  const synchronous = options.synchronous ?? 'full';
  const busyTimeoutMs = options.busyTimeoutMs ?? 5000;
  const { db, startFailure } = openFile(file, {
    synchronous,
    busyTimeoutMs,
    inspected: options.inspected,
  });
  const inMemory = file === ':memory:';
  const warn = options.warn ?? (() => undefined);

  const vocabulary = createVocabulary(db, options.indexUpkeep?.keepRemovalsMs);
  // An in-memory database has no WAL to copy back.
  const checkpoints = inMemory ? undefined : backgroundCheckpoint(file, synchronous, warn);
  const upkeep = createIndexUpkeep(
    db,
    () => checkpoints?.start(),
    options.indexUpkeep,
    vocabulary.purge,
  );
  const health = new WriteHealth(() => upkeep.schedule(), startFailure);
  const historyOf = historyReads(db);
  const writes = createWrites(db, vocabulary, historyOf);
  const readers = inMemory ? undefined : new SnapshotReaders(file, busyTimeoutMs, () => db.open);
  // Other processes' commits are polled for; an in-memory database has no other connection.
  const watch = new ChangeWatch(db, !inMemory, warn);

  /** A write transaction (`BEGIN IMMEDIATE`), its storage failures remembered. */
  function write<A extends unknown[], T>(work: (...args: A) => T): (...args: A) => T {
    const transaction = db.transaction(work);
    return (...args) => health.run(() => guard(() => transaction.immediate(...args)));
  }
  /** A write of the glossary: once it has committed, the change feed's listeners are told. */
  function change<A extends unknown[], T>(work: (...args: A) => T): (...args: A) => T {
    const committing = write(work);
    return (...args) => {
      const result = committing(...args);
      watch.changed();
      return result;
    };
  }
  const counts = keptCounts();
  const firstPages = keptPages();
  // Single creates that arrive in one turn share a transaction and its fsync; once committed,
  // the counts and first pages kept are carried past them.
  const createMany = change(writes.createMany);
  const create = groupCommit((entries: Parameters<Writes['createMany']>[0]) => {
    const created = createMany(entries);
    carryCounts(counts, created.before, created.after, created.terms);
    carryPages(firstPages, created.before, created.after, created.terms);
  });
  const importMany = change(writes.importMany);
  const update = change(writes.update);
  const remove = change(writes.remove);
  const restore = change(writes.restore);
  const probe = write(() => probeWrite(db));
  const readable = db.prepare('SELECT count(*) FROM (SELECT 1 FROM terms LIMIT 1)');

  // A file upgraded to migration 7, or left unmerged by a restart, is merged once quiet.
  upkeep.schedule();

  return {
    backend: 'sqlite',
    ...readMethods(db, readers, vocabulary, historyOf, counts, firstPages),
    ...tokenMethods(db, (work) => write(work)()),
    ...changeReads(db),
    ...linkReads(db),
    watchChanges: (listener) => watch.watch(listener),
    ...webhookMethods(db, (work) => write(work)()),
    create(term, change = anonymousChange()) {
      return create({ term, change });
    },
    async importMany(terms, change = anonymousChange()) {
      return importMany(terms, change);
    },
    async update(id, edit, change) {
      return update(id, edit, change);
    },
    async remove(id, confirm, change) {
      return remove(id, confirm, change);
    },
    async restore(id, revision, confirm, change) {
      return restore(id, revision, confirm, change);
    },
    async check() {
      guard(() => readable.get());
      if (health.failing) probe();
    },
    async close() {
      watch.close();
      await upkeep.close();
      await checkpoints?.close();
      readers?.close();
      if (db.open) db.close();
    },
  };
}
