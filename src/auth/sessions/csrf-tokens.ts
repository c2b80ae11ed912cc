import { createHmac } from 'node:crypto';
import { Tokens } from '@fastify/csrf';
import { Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DashboardCookies } from './dashboard-cookies.js';

/** A form is refused once its token is older than this: reload the page for a new one. */
export const CSRF_TOKEN_LIFETIME_MS = 12 * 60 * 60 * 1000;

/**
 * CSRF tokens of the dashboard's forms (`@fastify/csrf`: salted, hashed, timestamped).
 *
 * - Forms shown to a signed-in person are bound to the session: their secret is derived from the
 *   session's id, which lives in an HttpOnly cookie that no other site can read. A planted CSRF
 *   cookie is worth nothing against them, and signing out (anywhere) voids every such form.
 * - Forms shown signed out (sign in, sign up, the front page) have no session to bind to; their
 *   secret is a random value in the CSRF cookie, which the `__Host-` prefix protects over https.
 *
 * Every token expires after CSRF_TOKEN_LIFETIME_MS.
 */
@Injectable()
export class CsrfTokens {
  private readonly tokens = new Tokens({ validity: CSRF_TOKEN_LIFETIME_MS });

  constructor(private readonly cookies: DashboardCookies) {}

  /** A token for a form on this page; `signedIn`: whether the page belongs to a live session. */
  issue(request: FastifyRequest, reply: FastifyReply, signedIn: boolean): string {
    return this.tokens.create(signedIn ? this.sessionSecret(request) : this.cookieSecret(request, reply));
  }

  /** Whether the posted form's `_csrf` was issued for this session (or this signed-out browser). */
  valid(request: FastifyRequest, signedIn: boolean): boolean {
    const token = (request.body as { _csrf?: unknown } | undefined)?._csrf;
    if (typeof token !== 'string' || token === '') return false;
    const secret = signedIn ? this.sessionSecret(request) : this.cookies.read(request, 'csrf');
    return secret !== undefined && secret !== '' && this.tokens.verify(secret, token);
  }

  private sessionSecret(request: FastifyRequest): string {
    const sessionId = this.cookies.read(request, 'session') ?? '';
    return createHmac('sha256', sessionId).update('shortlink csrf').digest('base64url');
  }

  private cookieSecret(request: FastifyRequest, reply: FastifyReply): string {
    const existing = this.cookies.read(request, 'csrf');
    if (existing && /^[A-Za-z0-9_-]{16,64}$/.test(existing)) return existing;
    const secret = this.tokens.secretSync();
    this.cookies.set(reply, 'csrf', secret);
    return secret;
  }
}
