import cors from '@fastify/cors';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyRequest } from 'fastify';
import type { AppConfig } from '../../config/app-config.js';
import { isCrossOriginPath } from './route-table.js';

/** The headers a token call sends, and the ones its caller needs to read. */
export const CORS_ALLOWED_HEADERS = ['X-API-Key', 'Authorization', 'Content-Type', 'Idempotency-Key'];
export const CORS_EXPOSED_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'Retry-After',
  'Location',
];
const CORS_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'];

/**
 * CORS for `/api/*` and `/openapi.json`, for the origins in CORS_ORIGINS (none by default: then
 * nothing is registered and preflights stay 404). Tokens travel in headers, so credentials are
 * never allowed. A refused origin, and every other path (redirects, pages), get no CORS header at
 * all, which is how a browser learns that it may not read the answer.
 */
export async function registerCrossOrigin(app: NestFastifyApplication, config: AppConfig): Promise<void> {
  const allowed = config.corsOrigins;
  if (allowed !== '*' && allowed.length === 0) return;
  const isAllowed = (origin: string | undefined): origin is string =>
    origin !== undefined && (allowed === '*' || allowed.includes(origin));

  await app.register(cors, {
    delegator: (request: FastifyRequest, done) => {
      const origin = request.headers.origin;
      if (!isCrossOriginPath(request.url) || !isAllowed(origin)) return done(null, { origin: false });
      done(null, {
        origin: allowed === '*' ? '*' : origin,
        credentials: false,
        methods: CORS_METHODS,
        allowedHeaders: CORS_ALLOWED_HEADERS,
        exposedHeaders: CORS_EXPOSED_HEADERS,
        // Browsers cap this (Chromium: 2 hours); 10 minutes keeps a changed setting quick to apply.
        maxAge: 600,
      });
    },
  });
  // Routes outside the API skip the plugin's hook altogether (not even a `Vary: Origin`).
  app
    .getHttpAdapter()
    .getInstance()
    .addHook('onRoute', (route) => {
      if (route.method !== 'OPTIONS' && !isCrossOriginPath(route.url)) {
        route.config = { ...(route.config as object), cors: false };
      }
    });
}
