import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiSecurity } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { ActiveSession } from './sessions/sessions.service.js';
import type { Scope } from './scopes.js';

export const AUTH_POLICY = 'shortlink:auth-policy';
/** Set on page controllers (`@PageController()`): their routes are opened by a session, never a token. */
export const PAGE_ROUTES = 'shortlink:page-routes';
export const VERIFIED_EMAIL_TO_CREATE = 'shortlink:verified-email-to-create';
export const FORM_TOKEN_IF_SIGNED_IN = 'shortlink:form-token-if-signed-in';

/**
 * How a route is protected. Every route declares one; a test walks the routes to enforce it.
 * API routes: public, optional or required scopes (a token). Pages: public or signed-in (a session).
 */
export type AuthPolicy =
  | { kind: 'public' }
  | { kind: 'optional'; scopes: Scope[] }
  | { kind: 'required'; scopes: Scope[] }
  | { kind: 'signed-in'; role?: 'admin' };

/** Security scheme names used in the OpenAPI document. */
export const API_KEY_SCHEME = 'ApiKey';
export const BEARER_SCHEME = 'Bearer';

/**
 * Anyone may call the route; token headers are ignored. On a page, the visitor's session (if
 * any) is still resolved, for `@CurrentSession()`.
 */
export const Public = () => SetMetadata(AUTH_POLICY, { kind: 'public' } satisfies AuthPolicy);

/** A token with these scopes is required (401 without one, 403 without the scope). */
export const RequireScopes = (...scopes: Scope[]) =>
  applyDecorators(
    SetMetadata(AUTH_POLICY, { kind: 'required', scopes } satisfies AuthPolicy),
    ApiSecurity(API_KEY_SCHEME, scopes),
    ApiSecurity(BEARER_SCHEME, scopes),
  );

/**
 * Anonymous calls are allowed, but a token that is sent must be valid and hold these scopes:
 * a bad token is a 401, never a silent fall-back to anonymous.
 */
export const OptionalScopes = (...scopes: Scope[]) =>
  applyDecorators(
    SetMetadata(AUTH_POLICY, { kind: 'optional', scopes } satisfies AuthPolicy),
    ApiSecurity(API_KEY_SCHEME, scopes),
    ApiSecurity(BEARER_SCHEME, scopes),
    // An empty requirement object is how OpenAPI says "or no authentication at all".
    ApiSecurity({}),
  );

/**
 * A page for signed-in people: without a live session a GET is sent to the sign-in page (which
 * brings the person back), and any other method too; a form posted to it must carry a token
 * bound to the session (CSRF). Checked by the guard, so no handler can forget either.
 */
export const SignedIn = () => SetMetadata(AUTH_POLICY, { kind: 'signed-in' } satisfies AuthPolicy);

/**
 * A page for the instance's admins: a signed-in page (`@SignedIn()`: signed out → the sign-in
 * page, forms need the session's token) that answers 404 to anyone signed in who is not an admin,
 * as if it did not exist. Checked by the guard on every request, from the session's own read: an
 * admin demoted or disabled is refused on the next page.
 */
export const AdminOnly = () => SetMetadata(AUTH_POLICY, { kind: 'signed-in', role: 'admin' } satisfies AuthPolicy);

/**
 * A route that creates links or tokens: an account whose email is not proved yet (a sign-up under
 * SIGNUP=verify whose link was not opened) is refused with 403 `email_unverified`, checked by the
 * guard from the read that admits the caller (no extra query). Anonymous callers are not concerned.
 */
export const VerifiedEmailToCreate = () => SetMetadata(VERIFIED_EMAIL_TO_CREATE, true);

/**
 * A public page's form that does nothing for a visitor without a session (signing out): the
 * guard asks its form token only of a signed-in visitor. Every other form posted to a page,
 * signed in or out, carries a valid token or is refused before its handler runs.
 */
export const FormTokenIfSignedIn = () => SetMetadata(FORM_TOKEN_IF_SIGNED_IN, true);

/** Who calls the API: an account, through one of its tokens. */
export interface Caller {
  accountId: string;
  tokenId: string;
  scopes: Scope[];
  /** The account's email is proved or taken as given (SIGNUP=verify). */
  emailVerified: boolean;
}

/**
 * Whoever the guard admitted: a token's caller on `/api`, a session on pages. Never both kinds on
 * one route: a cookie never authorises the API, a token never opens a page.
 */
export type Principal = ({ kind: 'token' } & Caller) | ({ kind: 'session' } & ActiveSession);

export type AuthenticatedRequest = FastifyRequest & { principal?: Principal };

/** The calling account, or undefined for an anonymous call on an optional-auth route. */
export const CurrentCaller = createParamDecorator((_data: unknown, context: ExecutionContext): Caller | undefined => {
  const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().principal;
  return principal?.kind === 'token' ? principal : undefined;
});

/** The visitor's session on a page: always set on `@SignedIn()` pages, null when signed out. */
export const CurrentSession = createParamDecorator(
  (_data: unknown, context: ExecutionContext): ActiveSession | null => {
    const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().principal;
    return principal?.kind === 'session'
      ? {
          accountId: principal.accountId,
          idHash: principal.idHash,
          isAdmin: principal.isAdmin,
          emailVerified: principal.emailVerified,
        }
      : null;
  },
);
