import '../node-version.ts';
import fs from 'node:fs';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { TOKEN_NAME } from '../glossary/access.ts';
import { EXPORT_FORMATS, exportFormats } from '../glossary/exports/formats.ts';
import { REPORT_FORMATS, type ReportFormat } from '../lint/report-formats.ts';
import { backup } from './backup-command.ts';
import { CliError } from './cli-error.ts';
import { EXPORT_MARKER, exportCommand } from './export-command.ts';
import { addExamples } from './help-examples.ts';
import { httpUrl } from './http-url.ts';
import { addImportCommand } from './import-program.ts';
import { lintCommand } from './lint-command.ts';
import { DEFAULT_URL, ServiceClient } from './service-client.ts';
import { createToken, listTokens, revokeToken } from './token-commands.ts';
import { addWebhookCommands } from './webhook-program.ts';
import { CREATE_HELP } from './with-store.ts';

/**
 * `glossary serve | import | export | lint | backup | token | webhook`. Exit status: 0 success,
 * 1 a failure, a rejected item or a lint finding, 2 a usage error (bad flag or argument; for
 * `lint`, an I/O error too). Every error is one line on stderr.
 */
const USAGE_ERROR = 2;

function parseUrl(value: string): string {
  httpUrl(value, 'http://127.0.0.1:8000');
  return value;
}

function parseTokenName(value: string): string {
  if (!TOKEN_NAME.test(value)) {
    throw new InvalidArgumentError(
      'expected 1 to 64 letters, digits, and . _ @ - (starting with a letter or digit)',
    );
  }
  return value;
}

const urlOption = () =>
  new Option('--url <URL>', 'address of the glossary service')
    .env('GLOSSARY_URL')
    .default(DEFAULT_URL)
    .argParser(parseUrl);

const tokenOption = () =>
  new Option(
    '--token <TOKEN>',
    'a token for a service that needs one (prefer the environment variable: a command line is visible to other users)',
  ).env('GLOSSARY_TOKEN');

const VERSION = (
  JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  }
).version;

const program = new Command('glossary')
  .description(
    'Run, fill and export the technical terms glossary service, check docs against it, and manage its tokens and webhooks.',
  )
  .version(VERSION, '-V, --version', 'print the version')
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

addImportCommand(program, { urlOption, tokenOption });

program
  .command('export')
  .description(
    `Export the glossary (or the terms matching --category and --q) from the service: a file format to standard output or -o FILE, a folder format (${exportFormats()
      .filter((format) => format.kind === 'folder')
      .map((format) => format.name)
      .join(', ')}) into -o DIR. Formats:\n${exportFormats()
      .map((format) => `  ${format.name.padEnd(9)} ${format.description}`)
      .join('\n')}`,
  )
  .addOption(
    new Option('--format <FORMAT>', 'output format').choices([...EXPORT_FORMATS]).default('json'),
  )
  .option(
    '-o, --output <PATH>',
    `a file (written whole or not at all), or for a folder format a folder: new, empty, or a previous export (holding ${EXPORT_MARKER}), which is replaced whole`,
  )
  .addOption(new Option('--out <PATH>', 'the same as --output').hideHelp())
  .option('--category <CATEGORY>', 'only the terms of this category')
  .option('--q <WORDS>', 'only the terms these words find, as GET /terms?q= does')
  .addOption(urlOption())
  .addOption(tokenOption())
  .action(
    async (options: {
      url: string;
      token?: string;
      format: string;
      output?: string;
      out?: string;
      category?: string;
      q?: string;
    }) => {
      await exportCommand(new ServiceClient(options.url, options.token), {
        ...options,
        out: options.output ?? options.out,
      });
    },
  );

program
  .command('lint')
  .description(
    'Report every name to avoid used in the prose of Markdown, MDX, reStructuredText, AsciiDoc and text files under PATHs (never in code, URLs, link targets, front matter or comments), with the name to use; --fix replaces them. The glossary comes from the service (--url) or from a JSON export (--glossary). Exit status 0 nothing found, 1 findings, 2 a usage or I/O error.',
  )
  .argument('[PATH...]', 'files and folders to check (default: the current folder)')
  .option(
    '--glossary <FILE>',
    'a JSON export of the glossary (glossary export > FILE), read instead of the service',
  )
  .addOption(
    new Option('--format <FORMAT>', 'how to print the findings')
      .choices([...REPORT_FORMATS])
      .default('text'),
  )
  .option(
    '--fix',
    'replace each finding in its file, keeping a capital letter; code is never touched',
  )
  .option(
    '--ignore <GLOB>',
    'skip files and folders matching GLOB (a name without / matches at any depth); repeatable',
    (glob: string, previous: string[]) => [...previous, glob],
    [] as string[],
  )
  .addOption(urlOption())
  .addOption(tokenOption())
  .action(
    async (
      paths: string[],
      options: {
        url: string;
        token?: string;
        glossary?: string;
        format: ReportFormat;
        fix?: boolean;
        ignore: string[];
      },
    ) => {
      process.exitCode = await lintCommand(
        {
          paths,
          glossary: options.glossary,
          format: options.format,
          fix: options.fix ?? false,
          ignore: options.ignore,
          version: VERSION,
        },
        () => new ServiceClient(options.url, options.token),
      );
    },
  );

program
  .command('backup')
  .description(
    'Copy the live SQLite store (DATABASE_URL, as for the service; default sqlite:./data/glossary.db from this directory) into FILE, a new file, consistently, while the service goes on serving and writing. Restore by starting the service on the copy. For PostgreSQL use pg_dump.',
  )
  .argument('<FILE>', 'where the copy goes; it must not exist yet')
  .action(async (file: string) => {
    await backup(file);
  });

const tokens = program
  .command('token')
  .description(
    'Manage the tokens that protect writes (and, with READ_ACCESS=token, reads), next to the store the service uses: DATABASE_URL, as for the service (default sqlite:./data/glossary.db from this directory). While no token exists, writes are open.',
  );

tokens
  .command('create')
  .description('Create a token and print it, once: only a hash of it is stored.')
  .argument(
    '<NAME>',
    'a name for the token (shown in the history of what it changes)',
    parseTokenName,
  )
  .option('--read-only', 'the token may read but not write')
  .option('--create', CREATE_HELP)
  .action(async (name: string, options: { readOnly?: boolean; create?: boolean }) => {
    await createToken(name, options.readOnly ? 'read-only' : 'write', {
      create: options.create ?? false,
    });
  });

tokens
  .command('list')
  .description('List the tokens: names, kinds and creation times (never the tokens).')
  .action(listTokens);

tokens
  .command('revoke')
  .description('Revoke a token: it stops working at once, in every process and instance.')
  .argument('<NAME>', 'the name of the token')
  .action(async (name: string) => {
    await revokeToken(name);
  });

addWebhookCommands(program);
addExamples(program);

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
