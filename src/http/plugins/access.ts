import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { RateLimit, ReadAccess } from '../../config.ts';
import { verifyToken } from '../../glossary/access.ts';
import type { Change } from '../../glossary/history.ts';
import type { TermStore } from '../../glossary/term-store.ts';
import { type AuthFailures, createAuthFailures, proofOf } from '../auth-failures.ts';
import { clientOf } from '../client-windows.ts';
import { errors, HttpError } from '../errors.ts';
import { addRouteHook } from '../route-hooks.ts';

/**
 * Who may do what. Each route says what it needs in its config (`access`): `write` (every
 * change), `read` (the glossary's data) or nothing (the page, the docs, the probes). While no
 * token exists, everything is open, as in the original service. Once one exists, a write needs
 * `Authorization: Bearer <write token>`, and with READ_ACCESS=token a read needs a token of
 * either kind; an open read that presents a token anyway must present a valid one. The check
 * asks the store on every such request, so a token created or revoked (by any process) counts
 * from the next request on, in every worker and instance.
 *
 * It runs before the body is read: an unauthenticated client cannot make the service parse a
 * body; and after RATE_LIMIT's count, so a client over that limit is refused before its token
 * is looked at. A client whose tokens failed too often (AUTH_FAILURE_LIMIT, see
 * auth-failures.ts) is refused before its token is looked at too. Tokens are never logged: the
 * request log line carries the method and URL only.
 */

export type Access = 'write' | 'read';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
  }
  interface FastifyRequest {
    /** The name of the token the request carried, when one was needed and valid. */
    tokenName: string | null;
  }
}

/** The change a write request makes, as the history records it. */
export function changeBy(request: FastifyRequest): Change {
  return { by: request.tokenName };
}

export interface AccessOptions {
  store: TermStore;
  readAccess: ReadAccess;
  authFailureLimit: RateLimit | null;
}

export const access = fp(
  async (app: FastifyInstance, { store, readAccess, authFailureLimit }: AccessOptions) => {
    const failures = authFailureLimit && createAuthFailures(authFailureLimit);
    registerAccess(app, store, readAccess, failures);
  },
  { name: 'access', fastify: '5.x', dependencies: ['rate-limit'] },
);

function registerAccess(
  app: FastifyInstance,
  store: TermStore,
  readAccess: ReadAccess,
  failures: AuthFailures | null,
): void {
  app.decorateRequest('tokenName', null);
  // Decided per route as it is registered (so before the routes): a route open to all
  // carries no hook at all.
  app.addHook('onRoute', (route) => {
    const access = route.config?.access;
    if (access === undefined) return;
    const open = access === 'read' && readAccess === 'public';
    addRouteHook(
      route,
      'onRequest',
      (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
        // An open read is not looked at unless it presents a Bearer token; one that does has
        // it checked, so a wrong or revoked token is told (401) instead of silently ignored:
        // `glossary export --token` with a bad one would otherwise succeed, and the client
        // learn of its token only at its first write.
        if (open && !presentsBearer(request)) {
          done();
          return;
        }
        authorize(store, failures, request, access).then(
          () => done(),
          (error: unknown) => {
            if (error instanceof HttpError) {
              reply.code(error.statusCode).headers(error.headers).send({ detail: error.detail });
              return;
            }
            done(error as Error);
          },
        );
      },
    );
  });
}

async function authorize(
  store: TermStore,
  failures: AuthFailures | null,
  request: FastifyRequest,
  access: Access,
) {
  if (!(await store.hasTokens())) return;
  const presented = bearerToken(request);
  if (presented === undefined) throw errors.authenticationRequired();
  const token = failures
    ? await verifyCounted(store, failures, request, presented)
    : await verifyToken(store, presented);
  if (!token) throw errors.invalidToken();
  if (access === 'write' && token.kind !== 'write') throw errors.readOnlyToken();
  request.tokenName = token.name;
}

/** verifyToken within AUTH_FAILURE_LIMIT: a client refused too often is not even looked at. */
async function verifyCounted(
  store: TermStore,
  failures: AuthFailures,
  request: FastifyRequest,
  presented: string,
) {
  const client = clientOf(request);
  const proof = proofOf(presented);
  const attempt = await failures.attempt(client, proof);
  if (attempt.wait > 0) throw errors.tooManyFailedAuthentications(failures.limit, attempt.wait);
  let token: Awaited<ReturnType<typeof verifyToken>>;
  try {
    token = await verifyToken(store, presented);
  } catch (error) {
    // A check that could not be made (storage unavailable) is no failure of the client's.
    await failures.settle(client, proof, attempt, 'unchecked');
    throw error;
  }
  await failures.settle(client, proof, attempt, token ? 'valid' : 'invalid');
  return token;
}

/** Whether the request carries `Authorization: Bearer ...` (the scheme alone counts too). */
function presentsBearer(request: FastifyRequest): boolean {
  const header = request.headers.authorization;
  return header !== undefined && /^\s*Bearer(?:\s|$)/i.test(header);
}

/**
 * The token of `Authorization: Bearer <token>` (RFC 6750 §2.1), or undefined when the request
 * carries no Bearer credentials. Two Authorization headers are refused outright: Node would
 * keep the first and drop the other, and which one counts must not be a guess.
 */
function bearerToken(request: FastifyRequest): string | undefined {
  const raw = request.raw.rawHeaders;
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]?.length === 13 && raw[i]?.toLowerCase() === 'authorization') count += 1;
  }
  if (count > 1) throw errors.twoAuthorizations();
  const header = request.headers.authorization?.trim();
  if (!header) return undefined;
  // Another scheme (Basic, say) carries no Bearer credentials; `Bearer` with no token or with
  // more than one word carries a token that cannot be valid.
  const match = /^Bearer(?:\s+(.*))?$/i.exec(header);
  return match ? (match[1] ?? '') : undefined;
}
