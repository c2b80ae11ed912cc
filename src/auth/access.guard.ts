import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiError } from '../common/errors/api-error.js';
import {
  AUTH_POLICY,
  PAGE_ROUTES,
  VERIFIED_EMAIL_TO_CREATE,
  FORM_TOKEN_IF_SIGNED_IN,
  type AuthenticatedRequest,
  type AuthPolicy,
} from './auth.decorators.js';
import { CsrfTokens } from './sessions/csrf-tokens.js';
import { DashboardCookies } from './sessions/dashboard-cookies.js';
import { FormTokenRejectedError, SignInRequiredError } from './sessions/page-access.errors.js';
import { SessionsService } from './sessions/sessions.service.js';
import { TokensService } from './tokens.service.js';
import { extractToken } from './token-extraction.js';

type Targets = Parameters<Reflector['getAllAndOverride']>[1];

/** Methods that change nothing: no form token is asked of them. */
const SAFE_METHODS = new Set(['GET', 'HEAD']);

/**
 * Where signing in brings the person back to: the page itself; for a form posted after the
 * session ended, the page the form was on (a same-origin Referer: browsers send one under our
 * `Referrer-Policy: same-origin`), else the form's own path when it is a page, else the dashboard.
 */
function returnTo(request: AuthenticatedRequest): string {
  if (SAFE_METHODS.has(request.method)) return request.url;
  const referer = request.headers.referer;
  if (referer && URL.canParse(referer)) {
    const page = new URL(referer);
    if (page.host === request.host) return page.pathname + page.search;
  }
  const path = request.routeOptions.url;
  const isPage = path && !path.includes(':') && request.server.hasRoute({ method: 'GET', url: path });
  return isPage ? path : '/dashboard';
}

/**
 * The one global guard, and the one way in: it resolves every caller into one principal, an API
 * token on API routes and a session cookie on pages (`@PageController()`), never crossed.
 * Default-deny: a route without an auth policy is refused (and a test fails when one exists), so
 * forgetting a decorator can never expose an endpoint or a page.
 */
@Injectable()
export class AccessGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly tokens: TokensService,
    private readonly sessions: SessionsService,
    private readonly cookies: DashboardCookies,
    private readonly csrf: CsrfTokens,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const targets = [context.getHandler(), context.getClass()];
    const policy = this.reflector.getAllAndOverride<AuthPolicy | undefined>(AUTH_POLICY, targets);
    if (!policy) throw ApiError.forbidden('This route declares no access policy');
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const isPage = this.reflector.getAllAndOverride<boolean | undefined>(PAGE_ROUTES, targets) === true;
    return isPage ? this.admitToPage(policy, request, targets) : this.admitToApi(policy, request, targets);
  }

  /**
   * A route that creates (`@VerifiedEmailToCreate()`) refuses an account whose email is not proved
   * yet (SIGNUP=verify): 403 `email_unverified`, on the API and the pages alike.
   */
  private refuseUnverified(request: AuthenticatedRequest, targets: Targets): void {
    if (request.principal?.emailVerified !== false) return;
    if (this.reflector.getAllAndOverride<boolean | undefined>(VERIFIED_EMAIL_TO_CREATE, targets) === true) {
      throw ApiError.emailUnverified();
    }
  }

  /**
   * Every form posted to a public page (sign-in, sign-up, the front page, a report, a password
   * reset) carries the token its page was shown with, checked here before any handler runs:
   * bound to the session when the visitor has one, else to the signed-out browser's CSRF cookie.
   * Either is accepted when a session is present (the page may have been shown before signing
   * in); both are out of a cross-site page's reach. `@FormTokenIfSignedIn()`: none is asked of a
   * visitor without a session (signing out, which then does nothing).
   */
  private checkPublicFormToken(request: AuthenticatedRequest, signedIn: boolean, targets: Targets): void {
    if (signedIn && this.csrf.valid(request, true)) return;
    if (!signedIn && this.reflector.getAllAndOverride<boolean | undefined>(FORM_TOKEN_IF_SIGNED_IN, targets) === true) {
      return;
    }
    if (!this.csrf.valid(request, false)) throw new FormTokenRejectedError();
  }

  private async admitToApi(policy: AuthPolicy, request: AuthenticatedRequest, targets: Targets): Promise<boolean> {
    if (policy.kind === 'public') return true;
    // A page's policy on an API route is a mistake in the code: refused, never guessed at.
    if (policy.kind === 'signed-in') throw ApiError.forbidden('This route declares a page policy');

    const presented = extractToken(request.headers);
    if (presented.kind === 'malformed') throw ApiError.unauthorized(presented.reason);
    if (presented.kind === 'none') {
      if (policy.kind === 'optional') return true;
      throw ApiError.unauthorized('This operation needs an API token (X-API-Key or Authorization: Bearer)');
    }

    const token = await this.tokens.authenticate(presented.value);
    if (!token) throw ApiError.unauthorized('The API token is invalid or revoked');
    if (token.accountDisabled) throw ApiError.accountDisabled();
    const missing = policy.scopes.filter((scope) => !token.scopes.includes(scope));
    if (missing.length > 0) throw ApiError.forbidden(`The API token lacks the scope ${missing.join(', ')}`);

    request.principal = {
      kind: 'token',
      accountId: token.accountId,
      tokenId: token.id,
      scopes: token.scopes,
      emailVerified: token.emailVerified,
    };
    this.refuseUnverified(request, targets);
    return true;
  }

  private async admitToPage(policy: AuthPolicy, request: AuthenticatedRequest, targets: Targets): Promise<boolean> {
    // An API policy on a page is a mistake in the code: a token never opens a page.
    if (policy.kind !== 'public' && policy.kind !== 'signed-in') {
      throw ApiError.forbidden('This page declares an API policy');
    }
    const session = await this.sessions.resolve(this.cookies.read(request, 'session'));
    if (session) request.principal = { kind: 'session', ...session };
    if (policy.kind === 'public') {
      this.refuseUnverified(request, targets);
      if (!SAFE_METHODS.has(request.method)) this.checkPublicFormToken(request, session !== null, targets);
      return true;
    }

    if (!session) throw new SignInRequiredError(returnTo(request));
    // Not an admin: as if the page did not exist (before the form token: nothing is told or done).
    if (policy.role === 'admin' && !session.isAdmin) throw ApiError.notFound('There is no such page');
    if (!SAFE_METHODS.has(request.method) && !this.csrf.valid(request, true)) throw new FormTokenRejectedError();
    this.refuseUnverified(request, targets);
    return true;
  }
}
