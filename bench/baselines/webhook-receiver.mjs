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
  if (!counts) paths.set(path, (counts = { received: 0, ids: new Set(), held: null }));
  return counts;
};

const server = createServer((req, res) => {
  const [path, query] = (req.url ?? '/').split('?');
  const counts = countsOf(path);
  // `GET <path>?hold=1`: answers to <path> wait until `?hold=0` (the bench's --study holds a
  // worker up this way: with its attempts all waiting, it neither sends nor commits).
  if (req.method === 'GET' && query) {
    if (query === 'hold=1') counts.held ??= [];
    else if (query === 'hold=0') {
      for (const held of counts.held ?? []) held();
      counts.held = null;
    }
  }
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
    const answer = () => {
      res.writeHead(204);
      res.end();
    };
    if (counts.held) counts.held.push(answer);
    else answer();
  });
});

server.keepAliveTimeout = 72_000;
server.listen(port, '127.0.0.1', () => announce('webhook receiver', server.address().port));
