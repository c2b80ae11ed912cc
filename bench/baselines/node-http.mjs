// Baseline: the fastest redirect this machine can serve with Node — a bare node:http server
// answering 302 from an in-memory Map of the same links the service holds. No framework, no
// database, no logging. Usage: node bench/baselines/node-http.mjs <port> <links>
import { createServer } from 'node:http';
import { buildLinkMap, readArgs, announce } from './common.mjs';

const { port, links } = readArgs();
const targets = buildLinkMap(links);

const server = createServer((req, res) => {
  const end = req.url.indexOf('?');
  const target = targets.get(req.url.slice(1, end === -1 ? undefined : end));
  if (target === undefined) {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'content-length': 9 });
    res.end('not found');
    return;
  }
  // An explicit length: without one Node would send the empty body chunked, in more bytes and
  // writes than any real server answers a redirect with.
  res.writeHead(302, { location: target, 'cache-control': 'private, no-store', 'content-length': 0 });
  res.end();
});

server.keepAliveTimeout = 72_000;
server.listen(port, '127.0.0.1', () => announce('node:http', server.address().port));
