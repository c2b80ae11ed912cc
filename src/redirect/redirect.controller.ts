import { Controller, Get, Head, Req, Res } from '@nestjs/common';
import { ApiFoundResponse, ApiParam, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../auth/auth.decorators.js';
import { ApiError } from '../common/errors/api-error.js';
import { ApiProblemResponses } from '../common/errors/api-problem-responses.decorator.js';
import { REDIRECT_ROUTE } from './redirect-fast-path.js';
import { ServiceCounters } from '../metrics/service-counters.js';
import { LINK_EXPIRED, RedirectService } from './redirect.service.js';

type RedirectRequest = FastifyRequest<{ Params: { code: string } }>;

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
  @ApiProblemResponses('not_found', 'link_expired', 'service_unavailable')
  redirectHead(@Req() request: RedirectRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.redirect(request, reply);
  }

  /**
   * Follow a short link
   * @remarks Answers `302 Found` with the target in `Location` and counts the visit (`clicks`).
   * Unknown or deleted codes answer 404; a link past its `expires_at` answers 410 `link_expired`
   * (and the visit is not counted). Never rate limited. Swagger UI's "Try it out" cannot
   * show a cross-origin redirect: use `curl -i`.
   */
  @Get(REDIRECT_ROUTE)
  @Public()
  @CODE_PARAM
  @REDIRECT_RESPONSE
  @ApiProblemResponses('not_found', 'link_expired', 'service_unavailable')
  // Raw request and reply: this is the hot path, so no pipes, param decorators or serialisation.
  async redirect(@Req() request: RedirectRequest, @Res() reply: FastifyReply): Promise<void> {
    const code = request.params.code;
    const target = await this.redirects.resolve(code);
    if (target === null) {
      this.counters.redirectsNotFound++;
      throw ApiError.notFound();
    }
    if (target === LINK_EXPIRED) {
      this.counters.redirectsGone++;
      throw ApiError.linkExpired();
    }
    this.counters.redirectsFound++;
    this.redirects.sendRedirect(request, reply, code, target);
  }
}
