import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parse as parseQueryString } from 'node:querystring';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyCookie from '@fastify/cookie';
import fastifyStatic from '@fastify/static';
import fastifyView from '@fastify/view';
import { Eta } from 'eta';
import { errorCodes, type FastifyInstance } from 'fastify';
import { takesFormBodies } from '../common/http/route-table.js';

const here = dirname(fileURLToPath(import.meta.url));
/**
 * Templates are read from beside the compiled code when they are there (the image copies them
 * into dist/src/pages/), else from the source tree (tests, `npm start`).
 */
const SOURCE_DIR = existsSync(join(here, 'views')) ? here : join(here, '..', '..', '..', 'src', 'pages');
export const VIEWS_DIR = join(SOURCE_DIR, 'views');
/**
 * The browser's files (stylesheet, the small enhancement script) live outside src/, which holds
 * the service's TypeScript only: public/dashboard/ at the project's root, found upwards from
 * here (src/pages/ in tests, dist/src/pages/ when built).
 */
const PUBLIC_DIR =
  [join(here, '..', '..', 'public', 'dashboard'), join(here, '..', '..', '..', 'public', 'dashboard')].find((dir) =>
    existsSync(dir),
  ) ?? join(here, '..', '..', 'public', 'dashboard');

const WEBAUTHN_BROWSER_BUNDLE = join(
  dirname(createRequire(import.meta.url).resolve('@simplewebauthn/browser')),
  '..',
  'dist',
  'bundle',
  'index.umd.min.js',
);

/** Form fields are short; 64 KiB leaves room for 10k-character inputs and refuses more. */
const FORM_BODY_LIMIT = 64 * 1024;

/**
 * Fastify plugins of the dashboard pages: cookies (named and set by DashboardCookies; CSRF tokens
 * are CsrfTokens'), the view engine (Eta, escaping by default), its CSS and script under
 * /static/, and form bodies on page paths and short codes only (the API stays JSON-only: 415
 * elsewhere).
 */
export async function registerPagePlugins(fastify: FastifyInstance): Promise<void> {
  await fastify.register(fastifyCookie);
  await fastify.register(fastifyView, {
    engine: { eta: new Eta({ autoEscape: true, autoTrim: false, useWith: false }) },
    root: VIEWS_DIR,
    production: true,
  });
  await fastify.register(fastifyStatic, {
    root: PUBLIC_DIR,
    prefix: '/static/',
    decorateReply: false,
    maxAge: '1h',
  });
  // The browser half of passkeys (@simplewebauthn/browser's own bundle), served from here like
  // every other asset: no CDN.
  const webauthnBrowser = readFileSync(WEBAUTHN_BROWSER_BUNDLE);
  fastify.get('/static/vendor/simplewebauthn-browser.js', (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').header('Cache-Control', 'public, max-age=3600').send(webauthnBrowser),
  );
  fastify.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
    (request, body, done) => {
      if (!takesFormBodies(request.url)) {
        // The same 415 as any other non-JSON body on the API.
        done(new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(request.headers['content-type'] ?? ''));
        return;
      }
      done(null, parseQueryString(body as string));
    },
  );
}
