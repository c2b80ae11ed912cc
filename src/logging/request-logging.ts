import type { FastifyInstance, FastifyRequest } from 'fastify';
import { PinoLogger } from 'nestjs-pino';
import { stdSerializers, type Logger } from 'pino';
import { isLoggedRequest, loggableRequest, requestLineLevel } from './logger.options.js';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * A logger whose lines carry this request (id, method, URL, headers with secrets censored),
     * made on first use: what a server fault is logged through (`logServerFault`).
     */
    readonly requestLog: Logger;
  }
}

const REQUEST_LOG = Symbol('requestLog');

/**
 * Logs every request that reaches Fastify in pino-http's format: one line when the response has
 * been sent (`request completed`, or `request errored` for a 5xx), with the request, the response
 * and the time taken. Cached redirects are answered before Fastify and are not logged (see
 * redirect-fast-path.ts and `logsEveryRedirect`).
 *
 * Lazily, unlike pino-http's middleware, which makes each request's child logger as the request
 * arrives (serialising, censoring and stringifying the request) and listens for the response's
 * end, even for the requests whose line the level leaves out: every successful redirect below
 * `debug`. Side by side on the benchmark machine, that was a third of an uncached redirect's CPU
 * (101 → 65 µs over 10k links, 128 → 104 µs over 1M). Here the level is decided when the
 * response has been sent, and the request's logger is made only for a line that is written.
 *
 * Fastify hooks rather than nestjs-pino's middleware, which would run each request inside an
 * `AsyncLocalStorage` (see `loggerOptions`). Request lines are written by a child of the
 * application's root logger, so they share its destination, level and redaction. Log lines of
 * the application made during a request do not carry the request; server faults are logged
 * with it by `logServerFault` (problem-details.filter.ts).
 */
export function registerRequestLogging(
  fastify: FastifyInstance,
  // Set by nestjs-pino's LoggerModule while the application is created.
  root: Logger | undefined = PinoLogger.root,
): void {
  if (!root) throw new Error('The request logger needs the application logger: register it after NestFactory.create');
  // pino-http's serializers (the same functions): `req` and `res` shaped as in its lines.
  const base = root.child(
    {},
    { serializers: { req: loggableRequest, res: stdSerializers.res, err: stdSerializers.err } },
  );

  // Declared on every request (null until used) so all requests keep one shape.
  fastify.decorateRequest(REQUEST_LOG, null);
  fastify.decorateRequest('requestLog', {
    getter(this: FastifyRequest & { [REQUEST_LOG]?: Logger | null }): Logger {
      if (!this[REQUEST_LOG]) {
        // The request's id in the line is Fastify's (`req-1`, …), which the serializer reads there.
        (this.raw as { id?: string }).id = this.id;
        this[REQUEST_LOG] = base.child({ req: this.raw });
      }
      return this[REQUEST_LOG];
    },
  });

  fastify.addHook('onResponse', (request, reply, done) => {
    if (isLoggedRequest(request.raw)) {
      const status = reply.raw.statusCode;
      const level = requestLineLevel(request.raw.method, status);
      if (base.isLevelEnabled(level)) {
        // Whole milliseconds, as pino-http writes it.
        const responseTime = Math.round(reply.elapsedTime);
        const message = status >= 500 ? 'request errored' : 'request completed';
        request.requestLog[level]({ res: reply.raw, responseTime }, message);
      }
    }
    done();
  });
  // The client went away before its answer was sent: onResponse does not run.
  fastify.addHook('onRequestAbort', (request, done) => {
    if (isLoggedRequest(request.raw) && base.isLevelEnabled('info')) request.requestLog.info('request aborted');
    done();
  });
}
