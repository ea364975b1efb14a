import http from 'node:http';
import { body } from './bodies.ts';

/**
 * The yardstick: a bare node:http server answering a body of the size asked for, as fast as
 * node itself can. `GET /bytes/N` answers N bytes in one write; `GET /stream/N?chunk=C`
 * streams N bytes in writes of C bytes, waiting for the socket as the service does.
 */
const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://bare');
  const [, kind, sizeText] = url.pathname.split('/');
  const size = Number(sizeText);
  if (kind === 'bytes') {
    const payload = body(size);
    res.writeHead(200, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': payload.length,
    });
    res.end(payload);
    return;
  }
  if (kind === 'stream') {
    const chunk = body(Number(url.searchParams.get('chunk') ?? 65536));
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
    let left = size;
    const pump = () => {
      while (left > 0) {
        const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= piece.length;
        if (!res.write(piece)) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
    return;
  }
  res.writeHead(404).end();
});

server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(
    `${JSON.stringify({ port: typeof address === 'object' && address?.port })}\n`,
  );
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
