import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply } from 'fastify';
import helmet from 'helmet';
import type { IncomingMessage } from 'node:http';
import type { AppConfig } from '../../config/app-config.js';
import { REDIRECT_ROUTE } from '../../redirect/redirect-fast-path.js';

/**
 * Swagger UI's page carries inline <style> blocks and React sets style attributes, so `/docs`
 * needs inline styles; its scripts are all files served from here, so no inline script.
 */
const stylesFor = (request: IncomingMessage): string =>
  request.url?.startsWith('/docs') ? "'self' 'unsafe-inline'" : "'self'";

/**
 * Security headers on every answer but redirects, through helmet. The policy is made for
 * server-rendered pages whose every asset is served by the service itself: scripts, styles,
 * images and fonts from this origin only (images may also be `data:` URLs), forms posting to
 * this origin, no framing, no plugins. JSON answers get it too: harmless, and a browser that is
 * tricked into rendering one as HTML still runs nothing.
 *
 * helmet's middleware is built once, here, and run by one `onRequest` hook. (@fastify/helmet,
 * used before, built it again for every request, validating the options and formatting the
 * policy each time, in two hooks: a few per cent of the CPU of a link creation.)
 */
export function registerSecurityHeaders(app: NestFastifyApplication, config: AppConfig): void {
  const setHeaders = helmet({
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        styleSrc: [(request) => stylesFor(request)],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'"],
        connectSrc: ["'self'"],
        manifestSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        objectSrc: ["'none'"],
      },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'same-origin' },
    // Only where the service is reached over https: HSTS on plain http would be ignored at best.
    strictTransportSecurity: config.shortBaseUrl.startsWith('https:') ? { maxAge: 31_536_000 } : false,
  });
  // Redirect answers stay as small as they are on the fast path (src/redirect/redirect-fast-path.ts),
  // which answers cached codes before Fastify, and so before any hook. The pages the redirect
  // route answers with instead (a link's password form) ask for the headers themselves.
  const redirectRoute = `/${REDIRECT_ROUTE}`;
  const fastify: FastifyInstance = app.getHttpAdapter().getInstance();
  fastify.addHook('onRequest', (request, reply, done) => {
    if (request.routeOptions.url === redirectRoute) return done();
    // helmet sets the headers and calls back at once (with an Error, if a directive failed).
    setHeaders(request.raw, reply.raw, done as (error?: unknown) => void);
  });
  fastify.decorateReply('withSecurityHeaders', function (this: FastifyReply, options?: PageHeaderOptions) {
    // helmet calls back at once; an error there is a directive that failed, a fault of ours.
    setHeaders(this.request.raw, this.raw, (error?: unknown) => {
      if (error instanceof Error) throw error;
    });
    if (options?.formsRedirectAnywhere) {
      // Chromium applies form-action to the redirects that follow a form's submission too.
      const policy = String(this.raw.getHeader('content-security-policy'));
      this.raw.setHeader('content-security-policy', policy.replace(FORM_ACTION_SELF, FORM_ACTION_ANY_WEB_PAGE));
    }
    return this;
  });
}

const FORM_ACTION_SELF = "form-action 'self'";
const FORM_ACTION_ANY_WEB_PAGE = "form-action 'self' http: https:";

export interface PageHeaderOptions {
  /**
   * The page's forms post here but are answered with a redirect to any web address (a protected
   * link's form, to the link's target): `form-action` allows http: and https: too.
   */
  formsRedirectAnywhere?: boolean;
}

declare module 'fastify' {
  interface FastifyReply {
    /** Sets the security headers every page gets, on an answer of a route the hook leaves alone. */
    withSecurityHeaders(options?: PageHeaderOptions): FastifyReply;
  }
}
