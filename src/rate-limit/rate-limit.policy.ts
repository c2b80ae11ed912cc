import type { IncomingHttpHeaders } from 'node:http';
import type { AuthPolicy } from '../auth/auth.decorators.js';
import { extractToken } from '../auth/token-extraction.js';
import { hashToken } from '../auth/token-secret.js';
import type { AppConfig } from '../config/app-config.js';

/** Which counter a request is charged to. */
export type RateLimitBucket =
  | { kind: 'anonymous'; limit: number }
  // The key is the token's SHA-256, never the token itself (it ends up as a Redis key).
  | { kind: 'token'; limit: number; tokenHash: string };

export interface RouteFacts {
  /** The route pattern, e.g. `/api/links/:code`. */
  path: string;
  /** Carries `@AnonymousCreation()`. */
  anonymousCreation: boolean;
  /** The route's auth policy kind; `public` routes ignore token headers. */
  auth: AuthPolicy['kind'] | undefined;
}

/**
 * The contract's rule: token calls on `/api/*` count per token; anonymous creating calls count
 * per client IP; nothing else is limited (redirects, health, docs). A malformed token header is
 * not counted: the auth guard refuses it without touching the database.
 *
 * A token that does not exist gets a counter of its own, so sending someone else's token hash
 * is impossible and a wrong token never spends a real token's budget.
 */
export function rateLimitBucket(
  route: RouteFacts,
  headers: IncomingHttpHeaders,
  limits: AppConfig['rateLimit'],
): RateLimitBucket | undefined {
  const presented = route.auth === 'public' ? ({ kind: 'none' } as const) : extractToken(headers);
  switch (presented.kind) {
    case 'token':
      return route.path.startsWith('/api/')
        ? { kind: 'token', limit: limits.token, tokenHash: hashToken(presented.value) }
        : undefined;
    case 'none':
      return route.anonymousCreation ? { kind: 'anonymous', limit: limits.anonymous } : undefined;
    case 'malformed':
      return undefined;
  }
}
