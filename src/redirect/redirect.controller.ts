import { Controller, Get, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../auth/auth.decorators.js';
import { ApiError } from '../common/errors/api-error.js';
import { RedirectService } from './redirect.service.js';

type RedirectRequest = FastifyRequest<{ Params: { code: string } }>;

/**
 * `GET /{code}` and `HEAD /{code}` (Fastify answers HEAD with the GET route). The router prefers
 * static routes (`/health`, `/docs`, `/openapi.json`) over this parametric one, and `/api/...`
 * has more segments, so those always win. Reserved names are refused as custom codes so no
 * link hides behind a route.
 */
@Controller()
export class RedirectController {
  constructor(private readonly redirects: RedirectService) {}

  /** Redirects to the link's target (302) and counts the visit; 404 for unknown codes. */
  @Get(':code')
  @Public()
  // Raw request and reply: this is the hot path, so no pipes, param decorators or serialisation.
  async redirect(@Req() request: RedirectRequest, @Res() reply: FastifyReply): Promise<void> {
    const code = request.params.code;
    const target = await this.redirects.resolve(code);
    if (target === null) throw ApiError.notFound();
    // HEAD is used by link checkers and previewers, not visitors: it is answered but not counted.
    if (request.method === 'GET') this.redirects.countClick(code);
    // private, no-store: every visit must reach us to be counted, and a changed target must apply at once.
    void reply.code(302).header('location', target).header('cache-control', 'private, no-store').send();
  }
}
