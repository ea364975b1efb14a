import type { TermsFile } from './read-terms-file.ts';

/** What an import did, or in a dry run would do, with one term. */
export type ImportAction =
  | 'created'
  | 'updated'
  | 'unchanged'
  | 'skipped'
  | 'conflict'
  | 'deleted'
  | 'rejected';

export interface Outcome {
  action: ImportAction;
  /** The term's id; for a rejected item whatever its `id` was (absent when it had none). */
  id: unknown;
  /** The item's index in the file; a deletion (`--prune`) has none. */
  index?: number;
  /** `updated`, `conflict`: the fields that differ, in the order of a term's fields. */
  changes?: string[];
  /** `updated` by `--force` over a conflict; `created` by `--force` over a deletion. */
  forced?: boolean;
  /**
   * `conflict`: the term was deleted on the service (`changes`, if any, then names the fields
   * in which the file differs from the term as deleted).
   */
  deleted?: boolean;
  /** `rejected`: why. */
  detail?: string;
  /** `updated`, `deleted`: what the service's answer warned of (its `Warning` headers). */
  warnings?: string[];
}

export interface ReportOptions {
  file: string;
  source: TermsFile;
  json: boolean;
  dryRun: boolean;
  /** Called before lines are written (the progress bar clears its line). */
  beforeWrite?: () => void;
}

/**
 * The import's report: one line per term, in file order batch by batch (deletions last), then
 * a summary; with `--json` the same outcomes as one JSON array on stdout, written as they come
 * so a large sync holds no more than a batch of them, and the summary on stderr.
 */
export class ImportReport {
  private readonly counts = new Map<ImportAction, number>();
  private pending: Outcome[] = [];
  private written = 0;

  constructor(private readonly options: ReportOptions) {}

  add(outcome: Outcome): void {
    this.counts.set(outcome.action, this.count(outcome.action) + 1);
    this.pending.push(outcome);
  }

  count(action: ImportAction): number {
    return this.counts.get(action) ?? 0;
  }

  /** Writes the outcomes added since the last flush, in file order. */
  flush(): void {
    if (this.pending.length === 0) return;
    const outcomes = this.pending.sort(
      (a, b) => (a.index ?? Number.MAX_SAFE_INTEGER) - (b.index ?? Number.MAX_SAFE_INTEGER),
    );
    this.pending = [];
    this.options.beforeWrite?.();
    const lines = outcomes.map((outcome) =>
      this.options.json ? this.jsonLine(outcome) : `${this.textLine(outcome)}\n`,
    );
    process.stdout.write(lines.join(''));
  }

  /** Ends the output (the JSON array is closed whatever happened) and returns the summary. */
  close(total: number): string {
    this.flush();
    if (this.options.json) process.stdout.write(this.written === 0 ? '[]\n' : '\n]\n');
    const would = this.options.dryRun ? 'dry run, nothing changed: ' : '';
    return `${this.options.file}: ${would}${this.summary()} (${total} terms)`;
  }

  /** Writes the summary where it belongs; returns the exit status. */
  finish(total: number): number {
    const summary = this.close(total);
    (this.options.json ? process.stderr : process.stdout).write(`${summary}\n`);
    return this.count('conflict') + this.count('rejected') > 0 ? 1 : 0;
  }

  summary(): string {
    const parts = [`${this.count('created')} created`];
    const optional: [ImportAction, string][] = [
      ['updated', 'updated'],
      ['unchanged', 'unchanged'],
      ['skipped', 'skipped (already there)'],
      ['conflict', this.count('conflict') === 1 ? 'conflict' : 'conflicts'],
      ['deleted', 'deleted'],
    ];
    for (const [action, words] of optional) {
      if (this.count(action) > 0) parts.push(`${this.count(action)} ${words}`);
    }
    parts.push(`${this.count('rejected')} rejected`);
    return parts.join(', ');
  }

  private textLine(outcome: Outcome): string {
    const { warnings } = outcome;
    const warned = warnings && warnings.length > 0 ? ` (warning: ${warnings.join('; ')})` : '';
    return this.lineOf(outcome) + warned;
  }

  private lineOf({ action, id, index, changes, forced, deleted, detail }: Outcome): string {
    const fields = changes?.join(', ') ?? '';
    switch (action) {
      case 'created':
        return `created ${id}${forced ? ' (--force: re-created a term deleted on the service)' : ''}`;
      case 'updated':
        return `updated ${id}: ${fields}${forced ? " (--force: overwrote the service's change)" : ''}`;
      case 'conflict':
        if (deleted)
          return changes
            ? `conflict ${id}: deleted on the service, and the file changed ${fields} since; not re-created (--force re-creates)`
            : `conflict ${id}: deleted on the service since the file last matched it; not re-created (--force re-creates)`;
        return `conflict ${id}: ${fields} changed on the service since the file last matched it; not overwritten (--force overwrites)`;
      case 'skipped':
        return `skipped ${id}: already there`;
      case 'rejected': {
        const which = id === undefined ? '' : ` (id ${JSON.stringify(id)})`;
        const where =
          index === undefined
            ? `id ${JSON.stringify(id)}`
            : this.options.source.where(index) + which;
        return `rejected ${where}: ${detail}`;
      }
      default:
        return `${action} ${id}`;
    }
  }

  private jsonLine(outcome: Outcome): string {
    const { action, id, index, changes, forced, deleted, detail, warnings } = outcome;
    const place =
      action === 'rejected' && index !== undefined ? this.options.source.place(index) : {};
    const warned = warnings && warnings.length > 0 ? warnings : undefined;
    const line = JSON.stringify({
      id,
      action,
      ...place,
      deleted,
      changes,
      forced,
      detail,
      warnings: warned,
    });
    return `${this.written++ === 0 ? '[\n' : ',\n'}${line}`;
  }
}
