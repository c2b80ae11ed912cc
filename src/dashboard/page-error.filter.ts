import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { logServerFault } from '../common/errors/problem-details.filter.js';
import { toProblem } from '../common/errors/problem.js';
import { CsrfTokens } from './csrf-tokens.js';
import { DashboardCookies } from './dashboard-cookies.js';
import { SessionsService, type ActiveSession } from './sessions.service.js';

/** An error page a person should see, with its status. */
export class PageError extends HttpException {
  constructor(status: number, message: string) {
    super(message, status);
  }
}

const TITLES: Record<number, string> = {
  400: 'That request did not look right',
  401: 'Please sign in',
  403: 'Not allowed',
  404: 'Not found',
  413: 'That was too much',
  415: 'That request did not look right',
  429: 'Too many requests',
  503: 'Temporarily unavailable',
};

/** Errors on pages become HTML pages (the API's errors stay problem+json). */
@Catch()
export class PageErrorFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  constructor(
    private readonly sessions: SessionsService,
    private readonly cookies: DashboardCookies,
    private readonly csrf: CsrfTokens,
  ) {}

  async catch(exception: unknown, host: ArgumentsHost): Promise<void> {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    let status: number;
    let message: string;
    if (exception instanceof PageError) {
      status = exception.getStatus();
      message = exception.message;
    } else {
      const { isServerFault, ...problem } = toProblem(exception);
      if (isServerFault) logServerFault(exception, reply, this.logger);
      status = problem.status;
      message = isServerFault ? 'Something went wrong on our side. Please try again.' : problem.detail;
      if (problem.status === 404) message = 'There is no such link or page in your account.';
    }
    try {
      // A signed-in person keeps the signed-in header (and a working Sign out) on an error page.
      const request = host.switchToHttp().getRequest<FastifyRequest>();
      const session = await this.sessionOf(request);
      const html = await reply.viewAsync('error.eta', {
        status,
        title: TITLES[status] ?? (status >= 500 ? 'Something went wrong' : 'That did not work'),
        message,
        session,
        csrfToken: session ? this.csrf.issue(request, reply, true) : '',
      });
      void reply
        .status(status)
        .header('Content-Type', 'text/html; charset=utf-8')
        .header('Cache-Control', 'no-store')
        .send(html);
    } catch (error) {
      logServerFault(error, reply, this.logger);
      void reply.status(status).type('text/plain; charset=utf-8').send(message);
    }
  }

  /** The visitor's session, or null: also when the database is what failed (the page still shows). */
  private async sessionOf(request: FastifyRequest): Promise<ActiveSession | null> {
    try {
      return await this.sessions.resolve(this.cookies.read(request, 'session'));
    } catch {
      return null;
    }
  }
}
