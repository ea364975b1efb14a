import type { RouteOptions } from 'fastify';

type Hook = (...args: never[]) => void;

/**
 * Adds a hook to one route, in an `onRoute` hook: a hook that depends only on the route (its
 * pattern, its access) is decided once here, not looked up on every request. The list is made
 * anew, so the options Fastify copies for the route's HEAD twin keep their own.
 */
export function addRouteHook(
  route: RouteOptions,
  name: 'onRequest' | 'onResponse',
  hook: Hook,
): void {
  const existing = route[name] as Hook | Hook[] | undefined;
  (route as unknown as Record<string, Hook[]>)[name] =
    existing === undefined ? [hook] : [...[existing].flat(), hook];
}
