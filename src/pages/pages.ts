import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AuthenticatedRequest } from '../auth/auth.decorators.js';
import { ApiError, type ErrorName } from '../common/errors/api-error.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.tokens.js';
import { CsrfTokens } from '../auth/sessions/csrf-tokens.js';
import { DashboardCookies } from '../auth/sessions/dashboard-cookies.js';
import { SessionsService, type ActiveSession } from '../auth/sessions/sessions.service.js';
import type { SignInClient } from '../auth/sign-in/sign-in-limits.service.js';

export type Form = Record<string, string | string[] | undefined>;
export type Errors = Record<string, string>;

/** How long a browser's device cookie lasts (it is renewed at every sign-in). */
const DEVICE_COOKIE_MAX_AGE_SECONDS = 365 * 24 * 60 * 60;

/** Where an error that names no field belongs on a form, by its stable name. */
const FIELD_OF_ERROR: Partial<Record<ErrorName, string>> = {
  invalid_url: 'url',
  invalid_code: 'custom_code',
  code_taken: 'custom_code',
};
/** What a person can do about an error, by its stable name. */
const ADVICE: Partial<Record<ErrorName, string>> = {
  code_taken: 'Choose another one.',
  account_exists: 'Sign in instead.',
};

/**
 * A service's refusal as messages next to a form's fields (`labels`: the fields the form has, as
 * it labels them). Which field comes from the error's stable name or its field list, never from
 * its text; any other error is not the form's to show, and goes on to the error page. Field
 * messages start with the field's name ("url must …"), which the page words as its label does
 * ("The URL must …").
 */
export function formErrors(error: unknown, labels: Record<string, string>): Errors {
  if (!(error instanceof ApiError)) throw error;
  const problems = error.fieldErrors?.length
    ? error.fieldErrors
    : [{ field: FIELD_OF_ERROR[error.errorName] ?? '', message: error.detail }];
  const errors: Errors = {};
  for (const { field, message } of problems) {
    const label = labels[field];
    if (label === undefined) throw error;
    const worded = message.startsWith(`${field} `) ? `${label} ${message.slice(field.length + 1)}` : message;
    const advice = ADVICE[error.errorName];
    errors[field] ??= [/[.!?]$/.test(worded) ? worded : `${worded}.`, advice].filter(Boolean).join(' ');
  }
  return errors;
}

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
 * What every page controller of the dashboard does the same way: starting a session, and
 * rendering a page with its form tokens. Which session a page belongs to, and whether a posted
 * form's token is valid, is the guard's business (`AccessGuard`, before any handler runs).
 */
@Injectable()
export class Pages {
  constructor(
    private readonly sessions: SessionsService,
    private readonly csrf: CsrfTokens,
    private readonly cookies: DashboardCookies,
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
      // The "Sign in with …" button's label, when single sign-on is on.
      oidcName: this.config.oidc?.name,
      shortBaseUrl: this.config.shortBaseUrl,
    });
    return reply
      .status(status)
      .header('Content-Type', 'text/html; charset=utf-8')
      .header('Cache-Control', 'no-store')
      .send(html);
  }
}
