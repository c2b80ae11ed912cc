import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthenticatedRequest } from '../auth/auth.decorators.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.tokens.js';
import { CsrfTokens } from '../auth/sessions/csrf-tokens.js';
import { DashboardCookies } from '../auth/sessions/dashboard-cookies.js';
import { OidcService } from './oidc.service.js';
import { PageError } from './page-error.filter.js';
import { SessionsService, type ActiveSession } from '../auth/sessions/sessions.service.js';
import type { SignInClient } from './sign-in-limits.service.js';

export type Form = Record<string, string | string[] | undefined>;
export type Errors = Record<string, string>;

/** How long a browser's device cookie lasts (it is renewed at every sign-in). */
const DEVICE_COOKIE_MAX_AGE_SECONDS = 365 * 24 * 60 * 60;

/** A JSON field of a form (the browser's WebAuthn answer); null when it is not JSON. */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** One value of a form field (a repeated field counts as its first value); never undefined. */
export function field(form: Form | undefined, name: string, maxLength = 10_000): string {
  const value = form?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return (first ?? '').slice(0, maxLength);
}

export function fieldList(form: Form | undefined, name: string): string[] {
  const value = form?.[name];
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/**
 * What every page controller of the dashboard does the same way: CSRF checks of signed-out forms
 * (the guard checks signed-in ones), starting a session, and rendering a page with its form
 * tokens. Which session a page belongs to is the guard's business (`@CurrentSession()`).
 */
@Injectable()
export class Pages {
  constructor(
    private readonly sessions: SessionsService,
    private readonly csrf: CsrfTokens,
    private readonly cookies: DashboardCookies,
    private readonly oidc: OidcService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Every way in ends here: the old session (if any) ends, a new one starts, the device is kept. */
  async finishSignIn(
    request: FastifyRequest,
    reply: FastifyReply,
    accountId: string,
    deviceCookie: string | null,
  ): Promise<void> {
    // The guard resolved the visitor's session, if any, on this (public) page.
    const previous = (request as AuthenticatedRequest).principal;
    if (previous?.kind === 'session') await this.sessions.end(previous.idHash);
    await this.signIn(reply, accountId);
    this.keepDevice(reply, deviceCookie);
  }

  private async signIn(reply: FastifyReply, accountId: string): Promise<void> {
    const id = await this.sessions.start(accountId);
    this.cookies.set(reply, 'session', id, Math.floor(this.sessions.ttlMs / 1000));
  }

  /** Gives the browser a (new) device cookie: its own sign-in counter from now on. */
  keepDevice(reply: FastifyReply, deviceCookie: string | null): void {
    if (deviceCookie) this.cookies.set(reply, 'device', deviceCookie, DEVICE_COOKIE_MAX_AGE_SECONDS);
  }

  signInClient(request: FastifyRequest): SignInClient {
    return { ip: request.ip, deviceCookie: this.cookies.read(request, 'device') };
  }

  /** `signedIn`: the form was shown to a live session (its token is bound to it), else signed out. */
  checkCsrf(request: FastifyRequest, signedIn: boolean): void {
    if (!this.csrf.valid(request, signedIn)) {
      throw new PageError(
        403,
        'This form has expired or did not come from this site. Go back, reload the page and try again.',
      );
    }
  }

  /** Pages whose data carry a `session` are signed-in pages: their forms' tokens are bound to it. */
  async render(
    reply: FastifyReply,
    page: string,
    data: { session?: ActiveSession | null; [key: string]: unknown },
    status = 200,
  ) {
    const html = await reply.viewAsync(`${page}.eta`, {
      ...data,
      csrfToken: this.csrf.issue(reply.request, reply, Boolean(data.session)),
      oidcName: this.oidc.name,
      shortBaseUrl: this.config.shortBaseUrl,
    });
    return reply
      .status(status)
      .header('Content-Type', 'text/html; charset=utf-8')
      .header('Cache-Control', 'no-store')
      .send(html);
  }
}
