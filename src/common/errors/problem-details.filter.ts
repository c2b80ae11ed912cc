import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
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
    if (isServerFault) this.logger.error(exception);
    decorate(reply, body.status);
    void reply.status(body.status).type('text/plain; charset=utf-8').send(`error: ${body.error}`);
  }
}

export function sendProblem(exception: unknown, reply: FastifyReply, logger: Logger): void {
  const { isServerFault, ...body } = toProblem(exception);
  if (isServerFault) logger.error(exception);
  decorate(reply, body.status);
  void reply.status(body.status).type('application/problem+json').send(JSON.stringify(body));
}

function decorate(reply: FastifyReply, status: number): void {
  if (status === 401) void reply.header('WWW-Authenticate', 'Bearer');
}
