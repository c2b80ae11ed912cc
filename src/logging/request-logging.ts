import type { FastifyInstance } from 'fastify';
import { PinoLogger } from 'nestjs-pino';
import type { Logger } from 'pino';
import { pinoHttp } from 'pino-http';
import { requestLoggerOptions } from './logger.options.js';

/**
 * Logs every request that reaches Fastify as pino-http does: one line when the response is
 * finished, with the request (secret headers redacted), the response and the time taken.
 * Cached redirects are answered before Fastify and are not logged (see
 * redirect-fast-path.ts and `logsEveryRedirect`).
 *
 * A Fastify hook rather than nestjs-pino's middleware, which would run each request inside an
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
  const logRequest = pinoHttp({ ...requestLoggerOptions(), logger: root });
  fastify.addHook('onRequest', (request, reply, done) => {
    // The request's id in the log is Fastify's (`req-1`, …), which pino-http takes when set.
    (request.raw as { id?: string }).id = request.id;
    logRequest(request.raw, reply.raw);
    done();
  });
}
