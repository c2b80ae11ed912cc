import type { IncomingHttpHeaders } from 'node:http';

/** What the request carries: no token, one token, or something that must be refused (401). */
export type PresentedToken =
  { kind: 'none' } | { kind: 'token'; value: string } | { kind: 'malformed'; reason: string };

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

/**
 * Reads the token from `X-API-Key` or `Authorization: Bearer` (scheme case-insensitive). Both
 * headers with the same value are fine; different values, a repeated header or an
 * Authorization header of another shape are refused rather than guessed at.
 */
export function extractToken(headers: IncomingHttpHeaders): PresentedToken {
  const apiKeyHeader = headers['x-api-key'];
  const authorization = headers.authorization;
  if (apiKeyHeader === undefined && authorization === undefined) return { kind: 'none' };

  if (Array.isArray(apiKeyHeader)) return { kind: 'malformed', reason: 'X-API-Key was sent more than once' };
  const apiKey = apiKeyHeader?.trim();
  if (apiKey === '') return { kind: 'malformed', reason: 'X-API-Key is empty' };

  let bearer: string | undefined;
  if (authorization !== undefined) {
    const match = BEARER.exec(authorization.trim());
    if (!match) return { kind: 'malformed', reason: 'Authorization must be "Bearer <token>"' };
    bearer = match[1];
  }

  if (apiKey !== undefined && bearer !== undefined && apiKey !== bearer) {
    return { kind: 'malformed', reason: 'X-API-Key and Authorization carry different tokens' };
  }
  return { kind: 'token', value: (apiKey ?? bearer)! };
}
