// The webhook scenarios' receiver: a bare node:http server, in a process of its own so that its
// CPU is not the service's, answering every POST 204 as a fast receiver would. It counts, per
// path, the messages it got and the distinct `webhook-id`s among them (a retry repeats its id);
// the runner reads them with `GET <path>`. Usage: node bench/baselines/webhook-receiver.mjs <port>
import { createServer } from 'node:http';
import { announce } from './common.mjs';

const port = Number(process.argv[2] ?? '0');
/** @type {Map<string, { received: number, ids: Set<unknown> }>} */
const paths = new Map();
const countsOf = (path) => {
  let counts = paths.get(path);
  if (!counts) paths.set(path, (counts = { received: 0, ids: new Set() }));
  return counts;
};

const server = createServer((req, res) => {
  const counts = countsOf(req.url);
  if (req.method === 'GET') {
    const body = JSON.stringify({ received: counts.received, distinct: counts.ids.size });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
    return;
  }
  // The body is read (and dropped) as a receiver would before it answers.
  req.resume();
  req.on('end', () => {
    counts.received++;
    counts.ids.add(req.headers['webhook-id']);
    res.writeHead(204);
    res.end();
  });
});

server.keepAliveTimeout = 72_000;
server.listen(port, '127.0.0.1', () => announce('webhook receiver', server.address().port));
