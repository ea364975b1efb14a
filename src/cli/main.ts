import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { CliError } from './cli-error.ts';
import { EXPORT_FORMATS, type ExportFormat, toCsv, toJson } from './export-formats.ts';
import { importCommand } from './import-command.ts';
import { toMarkdown } from './markdown-glossary.ts';
import { DEFAULT_URL, ServiceClient } from './service-client.ts';

/**
 * `glossary serve | import | export`. Exit status: 0 success, 1 a failure or a rejected item,
 * 2 a usage error (bad flag or argument). Every error is one line on stderr.
 */
const USAGE_ERROR = 2;
const MAX_BATCH = 10_000;

function parseUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('expected an address like http://127.0.0.1:8000');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidArgumentError('expected an http:// or https:// address');
  }
  return value;
}

function parseBatchSize(value: string): number {
  const size = Number(value);
  if (!/^\d+$/.test(value) || size < 1 || size > MAX_BATCH) {
    throw new InvalidArgumentError(`expected a whole number from 1 to ${MAX_BATCH}`);
  }
  return size;
}

const urlOption = () =>
  new Option('--url <URL>', 'address of the glossary service')
    .default(DEFAULT_URL)
    .argParser(parseUrl);

const program = new Command('glossary')
  .description('Run, fill and export the technical terms glossary service.')
  .configureOutput({
    outputError: (text, write) => write(`glossary: ${text.replace(/^error: /, '')}`),
  })
  .exitOverride()
  .showSuggestionAfterError();

program
  .command('serve')
  .description(
    'Start the service, as `npm start` does; it is configured by environment variables (PORT, HOST, DATABASE_URL, ...: see docs/configuration.md).',
  )
  .action(async () => {
    await import('../server.ts');
  });

program
  .command('import')
  .description(
    `Send the terms of FILE to POST /terms/bulk and report, by index in FILE, each rejected item. Exit status 1 if any was rejected.`,
  )
  .argument(
    '<FILE>',
    'a JSON array of terms, or CSV with the header id,term,definition,category,see_also (see_also: ids separated by ;); - reads standard input',
  )
  .addOption(urlOption())
  .addOption(
    new Option(
      '--format <FORMAT>',
      'format of FILE (default: from its extension or content)',
    ).choices(['json', 'csv']),
  )
  .addOption(
    new Option('--batch-size <N>', `terms per request, 1 to ${MAX_BATCH}`)
      .default(1000)
      .argParser(parseBatchSize),
  )
  .action(
    async (file: string, options: { url: string; format?: 'json' | 'csv'; batchSize: number }) => {
      process.exitCode = await importCommand(file, options);
    },
  );

program
  .command('export')
  .description(
    'Write the whole glossary to standard output: json (re-importable), csv, or md (a Markdown glossary grouped by category, sorted by term).',
  )
  .addOption(
    new Option('--format <FORMAT>', 'output format').choices(EXPORT_FORMATS).default('json'),
  )
  .addOption(urlOption())
  .action(async (options: { url: string; format: ExportFormat }) => {
    const terms = await new ServiceClient(options.url).listTerms();
    const render = { json: toJson, csv: toCsv, md: toMarkdown }[options.format];
    process.stdout.write(render(terms));
  });

// A reader that stops early (`glossary export | head`) is not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

try {
  await program.parseAsync();
} catch (error) {
  if (error instanceof CommanderError) {
    // Help and version were printed by commander; its usage errors too, as one line.
    process.exitCode = error.exitCode === 0 ? 0 : USAGE_ERROR;
  } else if (error instanceof CliError) {
    process.stderr.write(`glossary: ${error.message}\n`);
    process.exitCode = error.exitCode;
  } else {
    throw error;
  }
}
