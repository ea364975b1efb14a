import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/**
 * A webhook endpoint for the tests: a node:http server on 127.0.0.1 that verifies every
 * delivery with the `standardwebhooks` package (a verifier nobody here wrote) and records it.
 * It answers 500 to every `failEvery`-th request, verified or not, so that retries happen.
 */

export interface Delivery {
  webhookId: string;
  revision: number;
  type: string;
  /** The change as delivered (`data`). */
  data: { revision: number; type: string; id: number };
  /** What the receiver answered. */
  status: number;
}

export interface Receiver {
  url: string;
  /** Every verified request, in arrival order. */
  deliveries: Delivery[];
  /** Requests that failed verification or were not deliveries, with the reason. */
  rejected: string[];
  /** The secret to verify with (known once the endpoint is added). */
  secret: string | undefined;
  close(): Promise<void>;
}

export async function startReceiver({ failEvery = 7 } = {}): Promise<Receiver> {
  let requests = 0;
  const receiver: Receiver = {
    url: '',
    deliveries: [],
    rejected: [],
    secret: undefined,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
  const server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    requests += 1;
    const headers = {
      'webhook-id': String(request.headers['webhook-id'] ?? ''),
      'webhook-timestamp': String(request.headers['webhook-timestamp'] ?? ''),
      'webhook-signature': String(request.headers['webhook-signature'] ?? ''),
    };
    let payload: { type: string; timestamp: string; data: Delivery['data'] };
    try {
      if (request.method !== 'POST' || receiver.secret === undefined) {
        throw new Error(`${request.method} ${request.url} before the secret was known`);
      }
      payload = new Webhook(receiver.secret).verify(body, headers) as typeof payload;
    } catch (error) {
      receiver.rejected.push(`${(error as Error).message}: ${JSON.stringify(headers)} ${body}`);
      response.writeHead(400).end();
      return;
    }
    const status = requests % failEvery === 0 ? 500 : 204;
    receiver.deliveries.push({
      webhookId: headers['webhook-id'],
      revision: payload.data.revision,
      type: payload.type,
      data: payload.data,
      status,
    });
    response.writeHead(status).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}
