import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { logServerFault } from '../common/errors/problem-details.filter.js';
import type { ErrorName } from '../common/errors/api-error.js';
import { toProblem } from '../common/errors/problem.js';
import type { AuthenticatedRequest } from '../auth/auth.decorators.js';
import { CsrfTokens } from '../auth/sessions/csrf-tokens.js';
import { FormTokenRejectedError, SignInRequiredError } from '../auth/sessions/page-access.errors.js';
import { DashboardCookies } from '../auth/sessions/dashboard-cookies.js';
import { SessionsService, type ActiveSession } from '../auth/sessions/sessions.service.js';
import { safeNext } from './safe-next.js';

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

/**
 * What an error page says for an error whose detail is worded for API clients ("No such short
 * link"), by its stable name; every other domain error's detail is written for people as it is.
 */
const PAGE_TEXT: Partial<Record<ErrorName, string>> = {
  not_found: 'There is no such link or page in your account.',
};

/**
 * Errors on pages become HTML pages (the API's errors stay problem+json): a domain error
 * (ApiError) with its status and a text for people chosen by its stable name, anything else as
 * the API would answer it, server faults logged and never described. A page that needs a
 * session sends a signed-out visitor to the sign-in page instead.
 */
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
    if (exception instanceof SignInRequiredError) {
      void reply.redirect(`/login?next=${encodeURIComponent(safeNext(exception.returnTo))}`, 303);
      return;
    }
    let status: number;
    let message: string;
    if (exception instanceof FormTokenRejectedError) {
      status = 403;
      message = exception.message;
    } else {
      const { isServerFault, ...problem } = toProblem(exception);
      if (isServerFault) logServerFault(exception, reply, this.logger);
      status = problem.status;
      message = isServerFault
        ? 'Something went wrong on our side. Please try again.'
        : (PAGE_TEXT[problem.error] ?? problem.detail);
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

  /**
   * The visitor's session, or null: the guard's when it admitted the request, else looked up
   * (a guard that ran before it refused); null when the database is what failed (the page still shows).
   */
  private async sessionOf(request: AuthenticatedRequest): Promise<ActiveSession | null> {
    if (request.principal?.kind === 'session') return request.principal;
    try {
      return await this.sessions.resolve(this.cookies.read(request, 'session'));
    } catch {
      return null;
    }
  }
}
