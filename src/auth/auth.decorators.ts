import { applyDecorators, createParamDecorator, ExecutionContext, SetMetadata } from '@nestjs/common';
import { ApiSecurity } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import type { Scope } from './scopes.js';

export const AUTH_POLICY = 'shortlink:auth-policy';

/** How a route is protected. Every route declares one; a test walks the routes to enforce it. */
export type AuthPolicy =
  { kind: 'public' } | { kind: 'optional'; scopes: Scope[] } | { kind: 'required'; scopes: Scope[] };

/** Security scheme names used in the OpenAPI document. */
export const API_KEY_SCHEME = 'ApiKey';
export const BEARER_SCHEME = 'Bearer';

/** Anyone may call the route; token headers are ignored. */
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

/** Who is calling: set by the guard on token-authenticated requests. */
export interface Caller {
  accountId: string;
  tokenId: string;
  scopes: Scope[];
}

export type AuthenticatedRequest = FastifyRequest & { caller?: Caller };

/** The calling account, or undefined for an anonymous call on an optional-auth route. */
export const CurrentCaller = createParamDecorator(
  (_data: unknown, context: ExecutionContext): Caller | undefined =>
    context.switchToHttp().getRequest<AuthenticatedRequest>().caller,
);
