import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request a receiver got: its path, the Standard Webhooks headers, the body, when. */
export interface Received {
  path: string;
  id: string;
  timestamp: string;
  signature: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  /** Never answers (until the receiver closes). */
  hang?: boolean;
  /** Answers after this long. */
  delayMs?: number;
}

/**
 * A local webhook endpoint: records every request, answers as `answer` says for its path
 * (204 by default). Each path stands for an endpoint of its own.
 */
export async function startReceiver() {
  const received: Received[] = [];
  const hanging = new Set<http.ServerResponse>();
  const answers = new Map<string, (request: Received, nth: number) => Answer>();
  const server = http.createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => {
      body += chunk;
    });
    request.on('end', () => {
      const headers = request.headers as Record<string, string>;
      const got: Received = {
        path: request.url ?? '',
        id: headers['webhook-id'] ?? '',
        timestamp: headers['webhook-timestamp'] ?? '',
        signature: headers['webhook-signature'] ?? '',
        headers,
        body,
        at: Date.now(),
      };
      received.push(got);
      const nth = received.filter((r) => r.path === got.path).length;
      const answer = answers.get(got.path)?.(got, nth) ?? { status: 204 };
      if (answer.hang) {
        hanging.add(response);
        return;
      }
      const reply = () => response.writeHead(answer.status, answer.headers).end();
      if (answer.delayMs) setTimeout(reply, answer.delayMs);
      else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    received,
    url: (path: string) => `${base}${path}`,
    /** How `path` answers its `nth` request (1-based). */
    answer(path: string, how: (request: Received, nth: number) => Answer) {
      answers.set(path, how);
    },
    at: (path: string) => received.filter((r) => r.path === path),
    async close() {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
