import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyInstance, FastifyReply } from 'fastify';
import helmet from 'helmet';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AppConfig } from '../../config/app-config.js';
import { REDIRECT_ROUTE } from '../../redirect/redirect-fast-path.js';

/**
 * Swagger UI's page carries inline <style> blocks and React sets style attributes, so `/docs`
 * needs inline styles; its scripts are all files served from here, so no inline script.
 */
const isSwaggerUi = (request: IncomingMessage): boolean => request.url?.startsWith('/docs') === true;
const stylesFor = (request: IncomingMessage): string => (isSwaggerUi(request) ? "'self' 'unsafe-inline'" : "'self'");

/**
 * Security headers on every answer but redirects, through helmet. The policy is made for
 * server-rendered pages whose every asset is served by the service itself: scripts, styles,
 * images and fonts from this origin only (images may also be `data:` URLs), forms posting to
 * this origin, no framing, no plugins. JSON answers get it too: harmless, and a browser that is
 * tricked into rendering one as HTML still runs nothing.
 *
 * helmet works the headers out once per kind of answer (Swagger UI's pages, everything else),
 * here, and one `onRequest` hook sets them. (@fastify/helmet, used before, built the middleware
 * again for every request, validating the options and formatting the policy each time, in two
 * hooks: a few per cent of the CPU of a link creation; helmet's own middleware, run per request,
 * calls and checks the styles directive's function each time: 4–5 % of an API list call.)
 */
export function registerSecurityHeaders(app: NestFastifyApplication, config: AppConfig): void {
  const helmetHeaders = helmet({
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
  const docsHeaders = headersOf(helmetHeaders, '/docs');
  const otherHeaders = headersOf(helmetHeaders, '/');
  const setHeaders = (request: IncomingMessage, response: ServerResponse): void => {
    for (const [name, value] of isSwaggerUi(request) ? docsHeaders : otherHeaders) {
      response.setHeader(name, value);
    }
  };
  // Redirect answers stay as small as they are on the fast path (src/redirect/redirect-fast-path.ts),
  // which answers cached codes before Fastify, and so before any hook. The pages the redirect
  // route answers with instead (a link's password form) ask for the headers themselves.
  const redirectRoute = `/${REDIRECT_ROUTE}`;
  const fastify: FastifyInstance = app.getHttpAdapter().getInstance();
  fastify.addHook('onRequest', (request, reply, done) => {
    if (request.routeOptions.url !== redirectRoute) setHeaders(request.raw, reply.raw);
    done();
  });
  fastify.decorateReply('withSecurityHeaders', function (this: FastifyReply, options?: PageHeaderOptions) {
    setHeaders(this.request.raw, this.raw);
    if (options?.formsRedirectAnywhere) {
      // Chromium applies form-action to the redirects that follow a form's submission too.
      const policy = String(this.raw.getHeader('content-security-policy'));
      this.raw.setHeader('content-security-policy', policy.replace(FORM_ACTION_SELF, FORM_ACTION_ANY_WEB_PAGE));
    }
    return this;
  });
}

/**
 * The headers helmet sets on an answer to a request for `url` (its policy depends on nothing
 * else), in its order. helmet only sets headers, and removes X-Powered-By, which Fastify never
 * sends; it calls back at once, with an Error if a directive failed: a fault of ours, at start-up.
 */
function headersOf(
  middleware: (request: IncomingMessage, response: ServerResponse, next: (error?: unknown) => void) => void,
  url: string,
): Array<[string, string]> {
  const headers = new Map<string, string>();
  const response = {
    setHeader: (name: string, value: string) => headers.set(name, value),
    removeHeader: (name: string) => headers.delete(name),
  };
  middleware({ url, headers: {} } as IncomingMessage, response as unknown as ServerResponse, (error) => {
    if (error instanceof Error) throw error;
    if (error) throw new Error('helmet failed to set the security headers');
  });
  return [...headers];
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
