import { type Command, InvalidArgumentError } from 'commander';
import { CHANGE_TYPES, type ChangeType } from '../glossary/changes.ts';
import { CliError } from './cli-error.ts';
import { httpUrl } from './http-url.ts';
import {
  addWebhook,
  listDeliveries,
  listWebhooks,
  removeWebhook,
  rotateWebhook,
} from './webhook-commands.ts';
import { CREATE_HELP } from './with-store.ts';

/**
 * `glossary webhook add | list | remove | deliveries | rotate`: the command group with its
 * arguments checked (a bad one is a usage error, exit status 2); the work is in
 * webhook-commands.ts.
 */

const USAGE_ERROR = 2;

/** The longest endpoint URL `webhook add` takes. */
const MAX_ENDPOINT_URL = 2000;

/**
 * An endpoint's URL: http or https, no longer than MAX_ENDPOINT_URL, and without a user name
 * or password (it would be shown by `webhook list` and sent in the clear with every delivery;
 * the signature is what authenticates a delivery).
 */
function parseEndpointUrl(value: string): string {
  const url = httpUrl(value, 'https://docs.example.com/hook');
  if (url.username !== '' || url.password !== '') {
    throw new InvalidArgumentError(
      'expected an address without a user name or password: the endpoint checks the signature instead',
    );
  }
  if (value.length > MAX_ENDPOINT_URL) {
    throw new InvalidArgumentError(`expected an address of at most ${MAX_ENDPOINT_URL} characters`);
  }
  return value;
}

/** A webhook's name: like a token's, and `:` too, so that a host with its port is one. */
const WEBHOOK_NAME = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,63}$/;

function parseWebhookName(value: string): string {
  if (!WEBHOOK_NAME.test(value)) {
    throw new InvalidArgumentError(
      'expected 1 to 64 letters, digits, and . _ : @ - (starting with a letter or digit)',
    );
  }
  return value;
}

function parseWebhookTypes(value: string): ChangeType[] {
  const types = value.split(',').map((type) => type.trim());
  for (const type of types) {
    if (!(CHANGE_TYPES as readonly string[]).includes(type)) {
      throw new InvalidArgumentError(
        `expected a comma-separated list of ${CHANGE_TYPES.join(', ')}`,
      );
    }
  }
  return [...new Set(types)] as ChangeType[];
}

function parseLimit(value: string): number {
  const limit = Number(value);
  if (!/^\d+$/.test(value) || limit < 1 || limit > 100) {
    throw new InvalidArgumentError('expected a whole number from 1 to 100');
  }
  return limit;
}

/**
 * Makes `webhook` a command of `program` (made there, so that it inherits the program's exit
 * and output settings: a usage error exits 2).
 */
export function addWebhookCommands(program: Command): void {
  const webhooks = program
    .command('webhook')
    .description(
      'Manage the endpoints that receive every change, signed (Standard Webhooks), next to the store the service uses: DATABASE_URL, as for the service (default sqlite:./data/glossary.db from this directory). Running services pick a change up within a second.',
    );

  webhooks
    .command('add')
    .description(
      'Add an endpoint: it receives each change committed from now on, POSTed as JSON. Prints its signing secret, once.',
    )
    .argument('<URL>', 'where the changes are POSTed (http:// or https://)', parseEndpointUrl)
    .option('--name <NAME>', "the endpoint's name (default: the URL's host)", parseWebhookName)
    .option(
      '--types <TYPES>',
      `the change types it receives, comma-separated (default: all): ${CHANGE_TYPES.join(', ')}`,
      parseWebhookTypes,
    )
    .option('--create', CREATE_HELP)
    .action(
      async (url: string, options: { name?: string; types?: ChangeType[]; create?: boolean }) => {
        const name = options.name ?? new URL(url).host;
        if (!WEBHOOK_NAME.test(name)) {
          throw new CliError(
            `the URL's host is no name for a webhook; give one with --name`,
            USAGE_ERROR,
          );
        }
        await addWebhook(url, name, options.types ?? [], { create: options.create ?? false });
      },
    );

  webhooks
    .command('list')
    .description('List the endpoints: name, URL, types, last delivery, and state (why disabled).')
    .action(listWebhooks);

  webhooks
    .command('remove')
    .description('Remove an endpoint and its recent deliveries; it receives nothing more.')
    .argument('<NAME>', 'the name of the endpoint')
    .action(async (name: string) => {
      await removeWebhook(name);
    });

  webhooks
    .command('deliveries')
    .description(
      "An endpoint's recent delivery attempts, newest first: change, time, status, error.",
    )
    .argument('<NAME>', 'the name of the endpoint')
    .option('--limit <N>', 'how many, 1 to 100', parseLimit, 20)
    .action(async (name: string, options: { limit: number }) => {
      await listDeliveries(name, options.limit);
    });

  webhooks
    .command('rotate')
    .description(
      'Give an endpoint a new signing secret and print it, once; for 24 hours the previous one signs every delivery too.',
    )
    .argument('<NAME>', 'the name of the endpoint')
    .action(async (name: string) => {
      await rotateWebhook(name);
    });
}
