import type { FastifyInstance } from 'fastify';

/**
 * Lets a stopping instance drain instead of stalling or failing requests. While it closes,
 * requests that arrive on keep-alive connections (a load balancer keeps a pool of them) are
 * still served normally (the adapter sets `return503OnClosing: false`), and each answer carries
 * `Connection: close`, so the client opens its next connection to another instance. Without
 * this, a busy connection never becomes idle: Fastify would answer it 503 without a problem
 * body, and the process would wait for the keep-alive timeout before exiting.
 */
export function closeConnectionsWhenClosing(fastify: FastifyInstance): void {
  let closing = false;
  fastify.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  fastify.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) void reply.header('connection', 'close');
    done(null, payload);
  });
}
