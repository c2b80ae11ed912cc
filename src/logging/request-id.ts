import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

export const REQUEST_ID_HEADER = 'x-request-id';

/** What a client (or the proxy in front) may choose as the id: 1–128 visible ASCII characters. */
const VALID_REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

/**
 * The request's id: the incoming `X-Request-Id` when it is valid (a proxy's or the caller's own,
 * so one id follows a request through every hop), else a new UUID. It is echoed on the answer and
 * is the `req.id` of every log line of the request.
 */
export function requestIdOf(given: string | string[] | undefined): string {
  return typeof given === 'string' && VALID_REQUEST_ID.test(given) ? given : randomUUID();
}

/** Every answer Fastify sends carries the request's id (cached redirects set it themselves). */
export function echoRequestIds(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
}
