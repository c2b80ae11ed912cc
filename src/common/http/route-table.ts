import type { FastifyInstance } from 'fastify';

/**
 * What the service serves at each first path segment, in one table: every other path is a short
 * code (`GET /{code}`). The rules that depend on where a request goes derive from it:
 * - reserved codes: a link whose code is a segment here could never be reached (the route wins);
 * - pages: with short codes (a protected link's password form), the only paths that take form
 *   bodies (the rest of the service is JSON-only);
 * - cross-origin: the only paths that answer CORS;
 * - logging: the paths whose requests are not logged (health probes every few seconds).
 * The service refuses to start with a route whose first segment is missing here
 * (`requireListedRoutes`, test/route-table.e2e-spec.ts).
 */
export interface TopLevelRoute {
  /**
   * `api`: the JSON API and its document; `page`: the dashboard's HTML pages (forms); `static`:
   * files; `docs`: Swagger UI; `health`: probes; `reserved`: nothing yet, kept from codes for
   * routes a browser or a future release asks for.
   */
  kind: 'api' | 'page' | 'static' | 'docs' | 'health' | 'reserved';
  /** Browsers on other origins may call it (CORS_ORIGINS). */
  crossOrigin?: boolean;
}

/**
 * The redirect route's path (every path the table does not name): `RedirectController` declares
 * it, and the HTTP plugins that leave redirects alone (security headers) recognise it by it.
 */
export const REDIRECT_ROUTE = ':code';

export const ROUTE_TABLE: Readonly<Record<string, TopLevelRoute>> = {
  api: { kind: 'api', crossOrigin: true },
  'openapi.json': { kind: 'api', crossOrigin: true },
  'openapi.yaml': { kind: 'api' },
  docs: { kind: 'docs' },
  health: { kind: 'health' },
  signup: { kind: 'page' },
  login: { kind: 'page' },
  logout: { kind: 'page' },
  // "Forgot password?": the form, and the link the email holds (src/auth/email-links).
  'password-reset': { kind: 'page' },
  account: { kind: 'page' },
  dashboard: { kind: 'page' },
  // The instance's administration (admins only) and the public page for reporting a link.
  admin: { kind: 'page' },
  report: { kind: 'page' },
  static: { kind: 'static' },
  'favicon.ico': { kind: 'reserved' },
  'robots.txt': { kind: 'reserved' },
  assets: { kind: 'reserved' },
};

/** The front page (`/`) is a page too: the anonymous shorten form. */
const FRONT_PAGE: TopLevelRoute = { kind: 'page' };

/**
 * The table's entry for a request URL or route path, or undefined: a short code. Runs on every
 * request that reaches Fastify (the logging rule), so it reads the first segment in place.
 */
export function routeOf(url: string): TopLevelRoute | undefined {
  let end = 1;
  while (end < url.length && url[end] !== '/' && url[end] !== '?') end++;
  if (end === 1) return FRONT_PAGE;
  const segment = url.slice(1, end).toLowerCase();
  return Object.hasOwn(ROUTE_TABLE, segment) ? ROUTE_TABLE[segment] : undefined;
}

/** First path segments that cannot be short codes, lower-case (codes are compared case-insensitively). */
export const RESERVED_SEGMENTS: ReadonlySet<string> = new Set(Object.keys(ROUTE_TABLE));

export function isPagePath(url: string): boolean {
  return routeOf(url)?.kind === 'page';
}

/**
 * Paths that take form bodies: the pages, and short codes (a password-protected link's form
 * posts to `/{code}`). The JSON API does not.
 */
export function takesFormBodies(url: string): boolean {
  const route = routeOf(url);
  return route === undefined || route.kind === 'page';
}

export function isCrossOriginPath(url: string): boolean {
  const route = routeOf(url);
  // `/api` itself is no endpoint; what is under it is.
  return route?.crossOrigin === true && url.split('?', 1)[0] !== '/api';
}

/** Health probes every few seconds would drown the request log. */
export function isLoggedPath(url: string): boolean {
  return routeOf(url)?.kind !== 'health';
}

/**
 * Refuses, at start-up, a route whose first segment the table does not name: a new top-level
 * route cannot ship without its reserved code, its form, CORS and logging rules. Registered on
 * Fastify before any route (Nest's controllers, static files, Swagger UI).
 */
export function requireListedRoutes(fastify: FastifyInstance): void {
  fastify.addHook('onRoute', (route) => {
    const path = route.url ?? route.path;
    // The short codes' route (`/:code`) and Fastify's catch-alls are the rest of the path space.
    if (path.startsWith('/:') || path === '*' || path === '/*') return;
    if (!routeOf(path)) {
      throw new Error(`${String(route.method)} ${path} is not in the route table (src/common/http/route-table.ts)`);
    }
  });
}
