import { type Command, InvalidArgumentError, Option } from 'commander';
import { type ExistingTerms, importCommand } from './import-command.ts';

/**
 * `glossary import`: its options checked (a bad one is a usage error, exit status 2) and its
 * help; the work is in import-command.ts.
 */

const USAGE_ERROR = 2;
const MAX_BATCH = 10_000;

function parseBatchSize(value: string): number {
  const size = Number(value);
  if (!/^\d+$/.test(value) || size < 1 || size > MAX_BATCH) {
    throw new InvalidArgumentError(`expected a whole number from 1 to ${MAX_BATCH}`);
  }
  return size;
}

/** `shared`: the options every command that talks to the service takes, from main.ts. */
export function addImportCommand(
  program: Command,
  shared: { urlOption: () => Option; tokenOption: () => Option },
): void {
  const { urlOption, tokenOption } = shared;
  program
    .command('import')
    .description(
      'Send the terms of FILE to POST /terms/bulk and print one line per term (created, rejected with its CSV line or JSON index; with --update: updated with the fields changed, unchanged, conflict; with --prune: deleted), then a summary. Exit status 1 if any item was rejected or is a conflict.',
    )
    .argument(
      '<FILE>',
      'a JSON array of terms, or CSV with the header id,term,definition,category,see_also,aliases,avoid (see_also: ids separated by ;); - reads standard input',
    )
    .addOption(urlOption())
    .addOption(tokenOption())
    .addOption(
      new Option(
        '--format <FORMAT>',
        'format of FILE (default: from its extension or content)',
      ).choices(['json', 'csv']),
    )
    .addOption(
      new Option(
        '--skip-existing',
        'a term whose id the glossary has already is left as it is, and not an error',
      ).conflicts('update'),
    )
    .addOption(
      new Option(
        '--update',
        "sync: a term whose id the glossary has already is replaced by the file's when they differ, unless the service changed it since the file last matched it (a conflict); a term deleted on the service is a conflict too, not re-created",
      ),
    )
    .addOption(
      new Option(
        '--force',
        "with --update: replace a conflicting term by the file's all the same (re-create a deleted one)",
      ),
    )
    .addOption(
      new Option('--prune', 'with --update: delete the terms whose id the file does not hold'),
    )
    .addOption(new Option('--dry-run', 'report what the import would do; change nothing'))
    .addOption(
      new Option(
        '--json',
        'print the outcomes as a JSON array of {id, action, changes?, ...} on stdout (the summary goes to stderr)',
      ),
    )
    .addOption(
      new Option('--batch-size <N>', `terms per request, 1 to ${MAX_BATCH}`)
        .default(1000)
        .argParser(parseBatchSize),
    )
    .addHelpText(
      'after',
      `
Examples:
  glossary import terms.csv                                  add new terms; an existing id is rejected
  glossary export | glossary import - --url http://new:8000  copy a glossary to another service
  glossary import glossary.json --update --dry-run           review a sync: what would change, and conflicts
  glossary import glossary.json --update --prune             sync a file kept in git, deleting what it dropped
  glossary import glossary.json --update --json | jq '.[] | select(.action == "conflict")'`,
    )
    .action(async function (
      this: Command,
      file: string,
      options: {
        url: string;
        token?: string;
        format?: 'json' | 'csv';
        batchSize: number;
        skipExisting?: boolean;
        update?: boolean;
        force?: boolean;
        prune?: boolean;
        dryRun?: boolean;
        json?: boolean;
      },
    ) {
      for (const flag of ['force', 'prune'] as const) {
        if (options[flag] && !options.update) {
          this.error(`option '--${flag}' needs '--update'`, {
            exitCode: USAGE_ERROR,
            code: 'glossary.needsUpdate',
          });
        }
      }
      const existing: ExistingTerms = options.update
        ? 'update'
        : options.skipExisting
          ? 'skip'
          : 'reject';
      process.exitCode = await importCommand(file, {
        ...options,
        existing,
        dryRun: options.dryRun ?? false,
      });
    });
}
