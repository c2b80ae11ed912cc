import type { Server } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

const MiB = 1024 * 1024;

/** The limit of every request body, unless BODY_LIMITS names the route. */
export const DEFAULT_BODY_LIMIT = 1 * MiB;

/**
 * The one place request-body limits are set. Keys are `METHOD path` as the route is declared;
 * a route missing from the table gets DEFAULT_BODY_LIMIT. Bulk creation takes 1000 items of up
 * to 8 KiB URLs, so it needs room for ~9 MiB of JSON.
 */
export const BODY_LIMITS: Readonly<Record<string, number>> = {
  'POST /api/links/bulk': 10 * MiB,
};

/**
 * After a 413, what the client still sends is read and thrown away (never buffered) for at most
 * this long and this many bytes, then the connection is cut. Without it the server would close
 * while the client is still writing: the client's write fails (EPIPE/ECONNRESET) and, worse, the
 * kernel's reset can discard the 413 before the client has read it. nginx's "lingering close"
 * solves the same problem the same way. The bounds keep a client that announces 1 GB and trickles
 * it from holding a connection for ever.
 */
export const DISCARD_LIMITS = { maxBytes: 256 * MiB, maxMs: 10_000 } as const;

/** The body limit for a request or route, from BODY_LIMITS. */
export function bodyLimitFor(method: string | undefined, url: string | undefined): number {
  const path = (url ?? '').split('?', 1)[0];
  return BODY_LIMITS[`${method ?? 'GET'} ${path}`] ?? DEFAULT_BODY_LIMIT;
}

/** "1 MiB", "10 MiB": how problem details and docs name a limit. */
export function describeLimit(bytes: number): string {
  return bytes % MiB === 0 ? `${bytes / MiB} MiB` : `${bytes} bytes`;
}

/**
 * Applies the limits (Fastify's per-route `bodyLimit`, set as routes are declared), answers
 * `Expect: 100-continue` with the 413 itself when the announced length is over the limit, and
 * drains what a refused client still sends. Call before any route is registered.
 */
export function registerBodyLimits(fastify: FastifyInstance): void {
  fastify.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      const limit = BODY_LIMITS[`${method} ${route.url}`];
      if (limit !== undefined) route.bodyLimit = limit;
    }
  });

  fastify.addHook('onSend', (request, reply, payload, done) => {
    if (reply.statusCode === 413) drainAfterRefusal(request, reply);
    done(null, payload);
  });

  answerExpectContinue(fastify.server);
}

/**
 * Node answers `Expect: 100-continue` with `100 Continue` on its own unless the server listens
 * for `checkContinue`. Listening lets a body over the limit be refused before it is sent: the
 * request goes on to Fastify without the `100`, and Fastify answers 413 from the announced
 * `Content-Length` alone.
 */
function answerExpectContinue(server: Server): void {
  server.on('checkContinue', (request, response) => {
    const announced = Number(request.headers['content-length']);
    if (!(announced > bodyLimitFor(request.method, request.url))) response.writeContinue();
    server.emit('request', request, response);
  });
}

/**
 * Keeps the connection open after the 413 and lets the rest of the body be read and discarded,
 * within DISCARD_LIMITS. Fastify asks for `Connection: close` on a refused body; dropping that
 * header lets Node drain the body as it does for any unread request, and the connection may even
 * serve the client's next request once the body has gone by.
 */
function drainAfterRefusal(request: FastifyRequest, reply: FastifyReply): void {
  const incoming = request.raw;
  if (incoming.complete) return;
  reply.removeHeader('connection');
  const socket = incoming.socket;
  const cutOff = (): void => {
    socket.destroy();
  };
  const timer = setTimeout(cutOff, DISCARD_LIMITS.maxMs);
  timer.unref();
  // Reading the body here (rather than leaving it to Node's own discarding, which happens inside
  // its parser, out of sight) lets every chunk count against the byte bound as it arrives.
  let discarded = 0;
  const onData = (chunk: Buffer): void => {
    discarded += chunk.length;
    if (discarded > DISCARD_LIMITS.maxBytes) cutOff();
  };
  const stop = (): void => {
    clearTimeout(timer);
    incoming.off('data', onData);
    incoming.off('end', stop);
    socket.off('close', stop);
  };
  incoming.on('data', onData);
  incoming.once('end', stop);
  socket.once('close', stop);
  incoming.resume();
}
