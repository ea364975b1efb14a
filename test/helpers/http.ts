import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

/**
 * Sends the body exactly as given (no re-encoding), as a client with its own serializer would;
 * `contentType: null` sends no Content-Type header at all.
 */
export function postRaw(
  app: FastifyInstance,
  url: string,
  body: string | Buffer,
  contentType: string | null = 'application/json',
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url,
    payload: body,
    // light-my-request adds a JSON content type unless the header is explicitly undefined.
    headers: { 'content-type': contentType ?? undefined },
  });
}

export function postJson(
  app: FastifyInstance,
  url: string,
  body: unknown,
): Promise<LightMyRequestResponse> {
  return postRaw(app, url, JSON.stringify(body));
}

export async function getJson(app: FastifyInstance, url: string): Promise<unknown> {
  const response = await app.inject({ method: 'GET', url });
  if (response.statusCode !== 200) {
    throw new Error(`GET ${url} answered ${response.statusCode}: ${response.body}`);
  }
  return response.json();
}

/** The 422 faults of a response, failing loudly when it is not a 422. */
export function faultsOf(response: LightMyRequestResponse): unknown[] {
  if (response.statusCode !== 422) {
    throw new Error(`expected 422, got ${response.statusCode}: ${response.body.slice(0, 500)}`);
  }
  return (response.json() as { detail: unknown[] }).detail;
}

export const PERMITTED = "'frontend', 'backend', 'devops', 'docs-as-code'";
export const ENUM_MSG = `value is not a valid enumeration member; permitted: ${PERMITTED}`;
