import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply } from 'fastify';
import helmet from 'helmet';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppConfig } from '../../config/app-config.js';
import { REDIRECT_ROUTE } from './route-table.js';

/**
 * Swagger UI's page carries inline <style> blocks and React sets style attributes, so `/docs`
 * needs inline styles; its scripts are all files served from here, so no inline script.
 */
const isSwaggerUi = (request: IncomingMessage): boolean => request.url?.startsWith('/docs') === true;

/**
 * Security headers on every answer but redirects, through helmet. The policy is made for
 * server-rendered pages whose every asset is served by the service itself: scripts, styles,
 * images and fonts from this origin only (images may also be `data:` URLs), forms posting to
 * this origin, no framing, no plugins. JSON answers get it too: harmless, and a browser that is
 * tricked into rendering one as HTML still runs nothing.
 *
 * helmet works the headers out once per kind of answer (Swagger UI's pages, a page whose form
 * is answered with a redirect anywhere, everything else), here, and one `onRequest` hook sets
 * them. (@fastify/helmet, used before, built the middleware again for every request, validating
 * the options and formatting the policy each time, in two hooks: a few per cent of the CPU of a
 * link creation; helmet's own middleware, run per request, called and checked a styles
 * directive's function each time: 4–5 % of an API list call.)
 */
export function registerSecurityHeaders(app: NestFastifyApplication, config: AppConfig): void {
  const headersWith = (styleSrc: string[], formAction: string[]) =>
    headersOf(
      helmet({
        contentSecurityPolicy: {
          useDefaults: false,
          directives: {
            defaultSrc: ["'none'"],
            scriptSrc: ["'self'"],
            styleSrc,
            imgSrc: ["'self'", 'data:'],
            fontSrc: ["'self'"],
            connectSrc: ["'self'"],
            manifestSrc: ["'self'"],
            formAction,
            frameAncestors: ["'none'"],
            baseUri: ["'none'"],
            objectSrc: ["'none'"],
          },
        },
        frameguard: { action: 'deny' },
        referrerPolicy: { policy: 'same-origin' },
        // Only where the service is reached over https: HSTS on plain http would be ignored at best.
        strictTransportSecurity: config.shortBaseUrl.startsWith('https:') ? { maxAge: 31_536_000 } : false,
      }),
    );
  const docsHeaders = headersWith(["'self'", "'unsafe-inline'"], ["'self'"]);
  const otherHeaders = headersWith(["'self'"], ["'self'"]);
  // Chromium applies form-action to the redirects that follow a form's submission too.
  const formsRedirectAnywhereHeaders = headersWith(["'self'"], ["'self'", 'http:', 'https:']);
  const setHeaders = (response: ServerResponse, headers: Array<[string, string]>): void => {
    for (const [name, value] of headers) response.setHeader(name, value);
  };
  // Redirect answers stay as small as they are on the fast path (src/redirect/redirect-fast-path.ts),
  // which answers cached codes before Fastify, and so before any hook. The pages the redirect
  // route answers with instead (a link's password form) ask for the headers themselves.
  const redirectRoute = `/${REDIRECT_ROUTE}`;
  const fastify: FastifyInstance = app.getHttpAdapter().getInstance();
  fastify.addHook('onRequest', (request, reply, done) => {
    if (request.routeOptions.url !== redirectRoute) {
      setHeaders(reply.raw, isSwaggerUi(request.raw) ? docsHeaders : otherHeaders);
    }
    done();
  });
  fastify.decorateReply('withSecurityHeaders', function (this: FastifyReply, options?: PageHeaderOptions) {
    setHeaders(this.raw, options?.formsRedirectAnywhere ? formsRedirectAnywhereHeaders : otherHeaders);
    return this;
  });
}

/**
 * The headers helmet sets on an answer (its policy here depends on nothing in the request), in
 * its order. helmet only sets headers, and removes X-Powered-By, which Fastify never
 * sends; it calls back at once, with an Error if a directive failed: a fault of ours, at start-up.
 */
function headersOf(
  middleware: (request: IncomingMessage, response: ServerResponse, next: (error?: unknown) => void) => void,
): Array<[string, string]> {
  const headers = new Map<string, string>();
  const response = {
    setHeader: (name: string, value: string) => headers.set(name, value),
    removeHeader: (name: string) => headers.delete(name),
  };
  middleware({ headers: {} } as IncomingMessage, response as unknown as ServerResponse, (error) => {
    if (error instanceof Error) throw error;
    if (error) throw new Error('helmet failed to set the security headers');
  });
  return [...headers];
}

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
