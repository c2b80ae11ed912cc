import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DEFAULT_BODY_LIMIT, describeLimit } from '../http/body-limits.js';
import { REQUEST_ID_HEADER } from '../../logging/request-id.js';
import { toProblem } from './problem.js';

/**
 * The one place errors become responses: RFC 9457 `application/problem+json` for the JSON API.
 */
@Catch()
export class ProblemDetailsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    sendProblem(exception, host.switchToHttp().getResponse<FastifyReply>(), this.logger);
  }
}

/**
 * The plain-text variant, for `GET /api/s`, whose clients cannot read JSON: `error: <name>`
 * with the same status and headers.
 */
@Catch()
export class PlainTextErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const { isServerFault, ...body } = toProblem(exception);
    if (isServerFault) logServerFault(exception, reply, this.logger);
    decorate(reply, body.status);
    void reply.status(body.status).type('text/plain; charset=utf-8').send(`error: ${body.error}`);
  }
}

export function sendProblem(exception: unknown, reply: FastifyReply, logger: Logger): void {
  const { isServerFault, ...body } = toProblem(exception);
  if (isServerFault) logServerFault(exception, reply, logger);
  decorate(reply, body.status);
  // Errors of the router come before the hook that echoes the request's id.
  if (!reply.hasHeader(REQUEST_ID_HEADER) && reply.request?.id) void reply.header(REQUEST_ID_HEADER, reply.request.id);
  if (body.error === 'payload_too_large') body.detail = `The request body exceeds ${describeLimit(bodyLimitOf(reply))}`;
  void reply.status(body.status).type('application/problem+json').send(JSON.stringify(body));
}

/**
 * A server fault is logged with the request it broke: through the request's own logger (see
 * request-logging.ts), whose lines carry the request's id, method and URL. Without the request
 * logging (a bare Fastify instance), through the Nest logger.
 */
export function logServerFault(exception: unknown, reply: FastifyReply, logger: Logger): void {
  const requestLog = (reply.request as Partial<FastifyRequest> | undefined)?.requestLog;
  if (requestLog) requestLog.error({ context: 'Errors', err: exception });
  else logger.error(exception);
}

/** The limit of the route that refused the body (routes may have their own, see body-limits.ts). */
function bodyLimitOf(reply: FastifyReply): number {
  const routeOptions = (reply.request as Partial<FastifyRequest> | undefined)?.routeOptions;
  return routeOptions?.bodyLimit ?? DEFAULT_BODY_LIMIT;
}

function decorate(reply: FastifyReply, status: number): void {
  if (status === 401) void reply.header('WWW-Authenticate', 'Bearer');
}
