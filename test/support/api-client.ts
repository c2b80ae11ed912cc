import type { Link } from '../../sdk/client.js';
import { newClient, type TestAccount } from './factories.js';
import type { TestApp } from './test-app.js';

/** `TestApp.request`'s options: fetch's, and `json` for a JSON body. */
export type ApiInit = RequestInit & { json?: unknown };

/**
 * A request to `app` as `account`'s token holder: its `X-API-Key`, then the request's own headers
 * (`null`: no token, as anyone on the internet calls it).
 */
export function requestAs(
  app: TestApp,
  account: TestAccount | null,
  path: string,
  init: ApiInit = {},
): Promise<Response> {
  return app.request(path, { ...init, headers: { ...account?.apiKey, ...init.headers } });
}

/**
 * Creates a link through the API (`POST /api/links` with `json`, as `account`, with `headers`
 * besides), expects 201 and returns the link.
 */
export async function createLink(
  app: TestApp,
  account: TestAccount | null,
  json: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Link> {
  const response = await requestAs(app, account, '/api/links', { method: 'POST', json, headers });
  expect(response.status).toBe(201);
  return (await response.json()) as Link;
}

/**
 * Follows a short link once, as a visitor does (`GET /<code>` unless `method` says, redirects not
 * followed), by default from an address of its own (`newClient()`).
 */
export function visit(
  app: TestApp,
  code: string,
  headers: Record<string, string> = newClient(),
  method = 'GET',
): Promise<Response> {
  return app.request(`/${code}`, { method, headers });
}
