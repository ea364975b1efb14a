import { loadConfig } from '../config.ts';
import type { ChangeType } from '../glossary/changes.ts';
import type { DeliveryAttempt, Webhook } from '../glossary/webhooks.ts';
import { rangeName, refusedRange } from '../webhooks/address-guard.ts';
import { newSecret } from '../webhooks/signing.ts';
import { CliError } from './cli-error.ts';
import { printTable } from './table.ts';
import { withStore } from './with-store.ts';

/**
 * `glossary webhook add | list | remove | deliveries | rotate`: endpoints managed next to the
 * store (with-store.ts), like tokens; every running service process picks a change up within
 * a second. A secret is printed once, alone on stdout, so `SECRET=$(glossary webhook add ...)`
 * works; everything else said about it goes to stderr.
 */

/** After a rotation, the previous secret keeps signing this long: receivers have a day to switch. */
export const PREVIOUS_SECRET_MS = 24 * 60 * 60 * 1000;

export async function addWebhook(
  url: string,
  name: string,
  types: ChangeType[],
  { create = false } = {},
): Promise<void> {
  const secret = newSecret();
  const added = await withStore(
    (store) => store.addWebhook({ name, url, types, secret, createdAt: Date.now() }),
    { create },
  );
  if (added === 'name-taken') {
    throw new CliError(
      `a webhook named '${name}' exists already; remove it first or choose another name (--name)`,
    );
  }
  process.stdout.write(`${secret}\n`);
  process.stderr.write(
    `glossary: webhook '${name}' added; it receives ${types.length === 0 ? 'every change' : types.join(', ')} committed after revision ${added.cursor}. Its signing secret is shown only this once: give it to the endpoint\n`,
  );
  const literal = privateLiteral(url);
  if (literal && !loadConfig(process.env).webhookAllowPrivate) {
    process.stderr.write(
      `glossary: warning: ${literal}: deliveries are refused unless the service runs with WEBHOOK_ALLOW_PRIVATE=true\n`,
    );
  }
}

export async function listWebhooks(): Promise<void> {
  const webhooks = await withStore((store) => store.listWebhooks());
  if (webhooks.length === 0) {
    process.stdout.write('No webhooks.\n');
    return;
  }
  printTable(
    ['NAME', 'URL', 'TYPES', 'LAST DELIVERY', 'STATE'],
    webhooks.map((webhook) => [
      webhook.name,
      webhook.url,
      webhook.types.length === 0 ? 'all' : webhook.types.join(','),
      webhook.lastDelivery ? describeAttempt(webhook.lastDelivery) : '-',
      state(webhook),
    ]),
  );
}

export async function removeWebhook(name: string): Promise<void> {
  if (!(await withStore((store) => store.removeWebhook(name)))) {
    throw new CliError(`no webhook is named '${name}'`);
  }
  process.stdout.write(`Webhook '${name}' removed.\n`);
}

export async function listDeliveries(name: string, limit: number): Promise<void> {
  const attempts = await withStore((store) => store.webhookDeliveries(name, limit));
  if (attempts === undefined) throw new CliError(`no webhook is named '${name}'`);
  if (attempts.length === 0) {
    process.stdout.write(`No deliveries to '${name}' yet.\n`);
    return;
  }
  printTable(
    ['REVISION', 'TIME', 'STATUS', 'DURATION', 'ERROR'],
    attempts.map((attempt) => [
      String(attempt.revision),
      new Date(attempt.at).toISOString(),
      attempt.status === null ? '-' : String(attempt.status),
      `${attempt.durationMs} ms`,
      attempt.error ?? '',
    ]),
  );
}

export async function rotateWebhook(name: string): Promise<void> {
  const secret = newSecret();
  const until = Date.now() + PREVIOUS_SECRET_MS;
  if (!(await withStore((store) => store.rotateWebhookSecret(name, secret, until)))) {
    throw new CliError(`no webhook is named '${name}'`);
  }
  process.stdout.write(`${secret}\n`);
  process.stderr.write(
    `glossary: webhook '${name}' has a new signing secret, shown only this once; the previous one also signs every delivery until ${new Date(until).toISOString()}\n`,
  );
}

function describeAttempt(attempt: DeliveryAttempt): string {
  const outcome = attempt.error === null ? String(attempt.status) : attempt.error;
  return `${new Date(attempt.at).toISOString()} r${attempt.revision} ${outcome}`;
}

function state(webhook: Webhook): string {
  if (webhook.state === 'disabled') return `disabled: ${webhook.disabledReason ?? 'unknown'}`;
  if (webhook.attempts === 0) return 'active';
  const next =
    webhook.nextAttemptAt === null ? 'now' : new Date(webhook.nextAttemptAt).toISOString();
  return `retrying: ${webhook.attempts} failed, next ${next}`;
}

/** The URL's host when it is an IP literal the service refuses by default. */
function privateLiteral(url: string): string | undefined {
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return `${host} is a loopback name`;
  const range = /^[\d.]+$|:/.test(host) ? refusedRange(host) : undefined;
  return range === undefined ? undefined : `${host} is ${rangeName(range)}`;
}
