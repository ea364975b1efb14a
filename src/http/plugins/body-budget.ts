import { Transform, type TransformCallback } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { errors } from '../errors.ts';

/**
 * Request bodies are held in memory until they are parsed, so many clients each sending a large
 * body slowly could hold gigabytes between them. Every byte of a body is counted against one
 * budget for the process as it arrives; a chunk that would go past it fails its request with
 * 503 (`Retry-After`), and the rest of that body is never buffered (lingering-close.ts reads
 * and drops it). A request's bytes are given back when its answer has gone or its connection
 * closes, whichever comes first.
 */
export const bodyBudget = fp(
  async (app: FastifyInstance, { bytes }: { bytes: number }) => registerBodyBudget(app, bytes),
  // After the JSON body's checks: a body refused for its encoding is never counted.
  { name: 'body-budget', fastify: '5.x', dependencies: ['json-body'] },
);

function registerBodyBudget(app: FastifyInstance, bytes: number): void {
  let held = 0;
  const release = new WeakMap<FastifyRequest, () => void>();

  app.addHook('preParsing', (request, _reply, payload, done) => {
    const headers = request.headers;
    if (headers['transfer-encoding'] === undefined && !Number(headers['content-length'])) {
      done(null, payload);
      return;
    }
    let taken = 0;
    const giveBack = () => {
      held -= taken;
      taken = 0;
      request.raw.socket?.off('close', giveBack);
    };
    release.set(request, giveBack);
    request.raw.socket?.once('close', giveBack);
    const counted = new CountedBody((length) => {
      if (held + length > bytes) return false;
      held += length;
      taken += length;
      return true;
    });
    // Fastify's own limit (BODY_LIMIT) reads this from the stream it is given.
    payload.on('error', (error) => counted.destroy(error));
    done(null, payload.pipe(counted));
  });
  app.addHook('onResponse', (request, _reply, done) => {
    release.get(request)?.();
    done();
  });
}

class CountedBody extends Transform {
  receivedEncodedLength = 0;

  constructor(private readonly reserve: (length: number) => boolean) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (!this.reserve(chunk.length)) {
      callback(errors.bodiesOverBudget());
      return;
    }
    this.receivedEncodedLength += chunk.length;
    callback(null, chunk);
  }
}
