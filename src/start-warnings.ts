import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { TermStore } from './glossary/term-store.ts';

/** `localhost`, `::1` and all of 127.0.0.0/8: only this machine can connect. */
function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * Said once at start-up: while no token exists, anyone who can reach the port may change the
 * glossary, which is fine on a developer's machine and a surprise anywhere else.
 */
export async function warnAboutAccess(
  store: TermStore,
  config: Pick<Config, 'host' | 'readAccess'>,
  log: Pick<Logger, 'warn'>,
): Promise<void> {
  if (await store.hasTokens()) return;
  if (!isLoopback(config.host)) {
    log.warn(
      { host: config.host },
      'writes are open to anyone who can reach this address: no token exists yet (create one with `glossary token create NAME`)',
    );
  }
  if (config.readAccess === 'token') {
    log.warn('READ_ACCESS=token protects nothing until a token exists');
  }
}
