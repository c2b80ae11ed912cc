import { Controller, Get, Head, Inject, Post, Req, Res } from '@nestjs/common';
import {
  ApiBody,
  ApiConsumes,
  ApiFoundResponse,
  ApiOkResponse,
  ApiParam,
  ApiProduces,
  ApiResponse,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { ProblemDto } from '../common/errors/problem.dto.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.tokens.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../auth/auth.decorators.js';
import { ApiError } from '../common/errors/api-error.js';
import { ApiProblemResponses } from '../common/errors/api-problem-responses.decorator.js';
import { REDIRECT_ROUTE } from '../common/http/route-table.js';
import { ServiceCounters } from '../metrics/service-counters.js';
import { deviceTarget } from './device-target.js';
import { LINK_PASSWORD_MAX_LENGTH } from '../links/link-password.js';
import { formTokenValid, issueFormToken } from './link-password-form.js';
import { LinkPasswordGuesses, type GuessLimit } from './link-password-guesses.js';
import { LINK_EXPIRED, RedirectService, type ResolvedLink } from './redirect.service.js';

type RedirectRequest = FastifyRequest<{ Params: { code: string } }>;

/**
 * What the password form may be asked to show: the form; a wrong password; a form posted without
 * this form's token (from another site, or shown too long ago); a try refused by a limit.
 */
type PasswordPage =
  { status: 200 } | { status: 401 } | { status: 403 } | { status: 429; limit: GuessLimit; retryAfterSeconds: number };

const HTML_PAGE = { 'text/html': { schema: { type: 'string' } } };

const CODE_PARAM = ApiParam({
  name: 'code',
  description: 'The short code: the last path segment of a short URL',
  schema: { type: 'string', example: 'Ab3dE9x' },
});

const REDIRECT_RESPONSE = ApiFoundResponse({
  description: 'Found: the link exists; `Location` is its target.',
  headers: {
    Location: {
      description: 'The target URL',
      schema: { type: 'string', format: 'uri', example: 'https://example.com/' },
    },
    'Cache-Control': {
      description: 'Always `private, no-store`: every visit reaches the service, and a changed target applies at once',
      schema: { type: 'string', example: 'private, no-store' },
    },
  },
});

/**
 * 410, either way a link is gone: declared above `ApiProblemResponses` (decorators apply from the
 * bottom up), it adds the disabled link's HTML page to the catalogue's `link_expired`.
 */
const GONE_RESPONSE = ApiResponse({
  status: 410,
  // Follows the catalogue's description of `link_expired` (the two are joined).
  description:
    'A link disabled by the administrators of the service (by hand, through a blocked host or a disabled ' +
    'account) answers instead with a small HTML page saying so, which links to `/report` (HEAD: no body). ' +
    'Neither is counted as a visit.',
  content: {
    'application/problem+json': {
      schema: { $ref: getSchemaPath(ProblemDto) },
      example: {
        type: 'about:blank',
        title: 'Gone',
        status: 410,
        error: 'link_expired',
        detail: 'This short link has expired',
      },
    },
    ...HTML_PAGE,
  },
});

/**
 * `GET /{code}` and `HEAD /{code}` (Fastify answers HEAD with the GET route). The router prefers
 * static routes (`/health`, `/docs`, `/openapi.json`) over this parametric one, and `/api/...`
 * has more segments, so those always win. Reserved names are refused as custom codes so no
 * link hides behind a route.
 *
 * Codes this instance has cached are answered before the request reaches Nest, by
 * `RedirectFastPath`; these handlers serve the rest (a database read) and are what OpenAPI
 * documents. Both answer through `RedirectService` (`sendRedirect` here, `writeRedirect` on the
 * fast path), so the answers cannot differ.
 */
@ApiTags('redirect')
@Controller()
export class RedirectController {
  constructor(
    private readonly redirects: RedirectService,
    private readonly counters: ServiceCounters,
    private readonly guesses: LinkPasswordGuesses,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Check a short link
   * @remarks Like `GET /{code}`, without a body, and the visit is not counted: for link checkers
   * and previews.
   */
  // Declared before the GET route: Fastify then uses this HEAD route instead of deriving one
  // from GET, so HEAD is documented in OpenAPI like every other operation.
  @Head(REDIRECT_ROUTE)
  @Public()
  @CODE_PARAM
  @REDIRECT_RESPONSE
  @GONE_RESPONSE
  @ApiProblemResponses('password_required', 'not_found', 'link_expired', 'service_unavailable')
  redirectHead(@Req() request: RedirectRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.redirect(request, reply);
  }

  /**
   * Follow a short link
   * @remarks Answers `302 Found` with the target in `Location` and counts the visit (`clicks`).
   * With device targets, iPhones, iPads and iPods go to `ios_url` and Android devices to
   * `android_url` (read from the `User-Agent`). A password-protected link answers `200` with an
   * HTML form asking for the password instead (see `POST /{code}`); HEAD then answers 401.
   * Unknown or deleted codes answer 404; a link past its `expires_at` answers 410 `link_expired`,
   * and a link the administrators disabled answers 410 with an HTML page saying so (the visit is
   * not counted either way). Never rate limited. Swagger UI's "Try it out" cannot
   * show a cross-origin redirect: use `curl -i`.
   */
  @Get(REDIRECT_ROUTE)
  @Public()
  @CODE_PARAM
  @REDIRECT_RESPONSE
  @ApiOkResponse({
    description: 'The link is password-protected: an HTML page asking for the password.',
    content: HTML_PAGE,
  })
  @GONE_RESPONSE
  @ApiProblemResponses('not_found', 'link_expired', 'service_unavailable')
  // Raw request and reply: this is the hot path, so no pipes, param decorators or serialisation.
  async redirect(@Req() request: RedirectRequest, @Res() reply: FastifyReply): Promise<void> {
    const code = request.params.code;
    const link = await this.live(code);
    if (link.rules === undefined) {
      this.counters.redirectsFound++;
      this.redirects.sendRedirect(request, reply, code, link.target);
      return;
    }
    if (link.rules.disabled) return this.disabledPage(request, reply, code);
    if (link.rules.passwordHash !== null) {
      // A checker's HEAD learns that the link exists and is protected, nothing more.
      if (request.method === 'HEAD') throw ApiError.passwordRequired();
      return this.passwordPage(request, reply, code, link.rules.passwordHash, { status: 200 });
    }
    this.counters.redirectsFound++;
    this.redirects.sendRedirect(
      request,
      reply,
      code,
      deviceTarget(link.rules, link.target, request.headers['user-agent']),
    );
  }

  /**
   * Unlock a password-protected link
   * @remarks The password form's submission (`application/x-www-form-urlencoded`, fields
   * `password` and `_csrf`, the token of the form as `GET /{code}` showed it to this client
   * address, valid 2 hours; a JSON body `{"password": …}` needs no token). The right password
   * answers `302 Found` to the target (or the device's target) and counts the visit; a wrong one
   * answers 401 with the form again. A form without a valid token answers 403 with a fresh form,
   * and its password is neither checked nor counted. After 10 wrong passwords from one client IP
   * address for one link, or 30 from every address together, within 15 minutes, every try (from
   * that address, or from anyone) answers 429 until the 15 minutes are over. Nothing is
   * remembered: each visit asks again. A link without a password simply redirects.
   */
  @Post(REDIRECT_ROUTE)
  @Public()
  @CODE_PARAM
  @ApiConsumes('application/x-www-form-urlencoded')
  @ApiBody({
    schema: {
      type: 'object',
      required: ['password'],
      properties: {
        password: { type: 'string', maxLength: LINK_PASSWORD_MAX_LENGTH, example: 'open sesame' },
        _csrf: {
          type: 'string',
          description: "The form's token, from the page `GET /{code}` showed this client address",
          example: 'tbq1ms.Xk2…',
        },
      },
    },
  })
  @REDIRECT_RESPONSE
  @ApiProduces('text/html')
  @ApiResponse({ status: 401, description: 'Wrong password: the form again, saying so.', content: HTML_PAGE })
  @ApiResponse({
    status: 403,
    description:
      'A form without a valid token (posted from another site, or shown more than 2 hours ago): a fresh form; the password was not checked.',
    content: HTML_PAGE,
  })
  @ApiResponse({
    status: 429,
    description:
      'Too many wrong passwords from this address for this link, or for this link from everyone: the form, saying when to try again.',
    content: HTML_PAGE,
  })
  @GONE_RESPONSE
  @ApiProblemResponses('not_found', 'link_expired', 'service_unavailable')
  async unlock(@Req() request: RedirectRequest, @Res() reply: FastifyReply): Promise<void> {
    const code = request.params.code;
    const link = await this.live(code);
    if (link.rules?.disabled) return this.disabledPage(request, reply, code);
    const target = link.rules ? deviceTarget(link.rules, link.target, request.headers['user-agent']) : link.target;
    if (link.rules?.passwordHash == null) {
      // The password was removed since the form was shown: nothing left to ask.
      this.counters.redirectsFound++;
      this.redirects.sendRedirect(request, reply, code, target);
      return;
    }
    const passwordHash = link.rules.passwordHash;
    const body = request.body as Record<string, unknown> | undefined;
    // A browser posts JSON to another site only after a CORS preflight, which these routes never
    // grant: only a form can come from elsewhere, and a form must carry the token of one this
    // client was shown here. Checked before the limits: a forged form is no guess.
    if (!isJson(request) && !formTokenValid(body?._csrf, code, request.ip, passwordHash)) {
      return this.passwordPage(request, reply, code, passwordHash, { status: 403 });
    }
    const given = typeof body?.password === 'string' ? body.password : '';
    const guess = await this.guesses.check(code, request.ip, given, passwordHash);
    if (guess.outcome === 'limited') {
      return this.passwordPage(request, reply, code, passwordHash, {
        status: 429,
        limit: guess.limit,
        retryAfterSeconds: guess.retryAfterSeconds,
      });
    }
    if (guess.outcome === 'wrong') return this.passwordPage(request, reply, code, passwordHash, { status: 401 });
    this.counters.redirectsFound++;
    this.redirects.sendRedirect(request, reply, code, target);
  }

  /** The live link of `code`: 404 when there is none, 410 past its expiry (counted either way). */
  private async live(code: string): Promise<ResolvedLink> {
    const link = await this.redirects.resolve(code);
    if (link === null) {
      this.counters.redirectsNotFound++;
      throw ApiError.notFound();
    }
    if (link === LINK_EXPIRED) {
      this.counters.redirectsGone++;
      throw ApiError.linkExpired();
    }
    return link;
  }

  /**
   * A disabled link's answer: 410 and a small page saying so, with the way to report others
   * (HEAD: the status alone). Never stored, not for search engines.
   */
  private async disabledPage(request: FastifyRequest, reply: FastifyReply, code: string): Promise<void> {
    this.counters.redirectsDisabled++;
    void reply.withSecurityHeaders().status(410).header('Cache-Control', 'no-store').header('X-Robots-Tag', 'noindex');
    if (request.method === 'HEAD') {
      void reply.send();
      return;
    }
    const html = await reply.viewAsync('link-disabled.eta', { shortUrl: `${this.config.shortBaseUrl}/${code}` });
    void reply.header('Content-Type', 'text/html; charset=utf-8').send(html);
  }

  /**
   * The password form of a protected link: a page like the dashboard's (its layout, stylesheet
   * and security headers), never stored by a browser or a proxy, and not for search engines.
   */
  private async passwordPage(
    request: FastifyRequest,
    reply: FastifyReply,
    code: string,
    passwordHash: string,
    page: PasswordPage,
  ): Promise<void> {
    const html = await reply.viewAsync('link-password.eta', {
      code,
      formToken: issueFormToken(code, request.ip, passwordHash),
      wrong: page.status === 401,
      forged: page.status === 403,
      lockedLink: page.status === 429 && page.limit === 'link',
      retryAfterMinutes: page.status === 429 ? Math.max(1, Math.ceil(page.retryAfterSeconds / 60)) : undefined,
    });
    if (page.status === 429) void reply.header('Retry-After', String(page.retryAfterSeconds));
    void reply
      .withSecurityHeaders({ formsRedirectAnywhere: true })
      .status(page.status)
      .header('Content-Type', 'text/html; charset=utf-8')
      .header('Cache-Control', 'no-store')
      .header('X-Robots-Tag', 'noindex')
      .send(html);
  }
}

/** Whether the request's body came as JSON (`application/json`, any parameters). */
function isJson(request: FastifyRequest): boolean {
  const type = request.headers['content-type'];
  return typeof type === 'string' && /^application\/json\s*(;|$)/i.test(type);
}
