// Baseline: bare Fastify 5 answering 302 from an in-memory Map, i.e. what the service's HTTP
// framework costs before Nest, validation, logging and the database add theirs.
// Usage: node bench/baselines/fastify.mjs <port> <links>
import Fastify from 'fastify';
import { buildLinkMap, readArgs, announce } from './common.mjs';

const { port, links } = readArgs();
const targets = buildLinkMap(links);

const app = Fastify({ logger: false, keepAliveTimeout: 72_000 });
app.get('/:code', (request, reply) => {
  const target = targets.get(request.params.code);
  if (target === undefined) return reply.code(404).type('text/plain; charset=utf-8').send('not found');
  return reply.code(302).header('location', target).header('cache-control', 'private, no-store').send();
});

await app.listen({ port, host: '127.0.0.1' });
announce('fastify', app.server.address().port);
