import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Request headers a client of the glossary sends and the proxy passes on. */
const PASSED = ['accept', 'authorization', 'content-type', 'if-match', 'if-none-match'];
/** Answer headers passed back. */
const RETURNED = ['content-type', 'etag', 'warning', 'location', 'link', 'x-total-count'];

export interface FaultyProxy {
  /** `http://127.0.0.1:PORT`: the service behind it, as a client sees it. */
  url: string;
  close(): Promise<void>;
}

/**
 * A loopback proxy in front of `target` that answers `500` to the requests `fails` picks and
 * passes every other on: a service whose storage fails one write, for a client's handling of
 * an error in the middle of a run.
 */
export async function faultyProxy(
  target: string,
  fails: (method: string, url: string) => boolean,
): Promise<FaultyProxy> {
  const server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const method = request.method ?? 'GET';
    const url = request.url ?? '/';
    if (fails(method, url)) {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end('{"detail":"Internal Server Error"}');
      return;
    }
    const headers: Record<string, string> = {};
    for (const name of PASSED) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const upstream = await fetch(new URL(url, target), {
      method,
      headers,
      body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
    });
    const back: Record<string, string> = {};
    for (const name of RETURNED) {
      const value = upstream.headers.get(name);
      if (value !== null) back[name] = value;
    }
    const body = Buffer.from(await upstream.arrayBuffer());
    response.writeHead(upstream.status, back);
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
