import { Get, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Pages, field, fieldList, formErrors, type Form } from '../../pages/pages.js';
import { PageController } from '../../pages/page-controller.decorator.js';
import { CurrentSession, SignedIn, VerifiedEmailToCreate } from '../auth.decorators.js';
import { ALL_SCOPES, isScope, SCOPES } from '../scopes.js';
import type { ActiveSession } from '../sessions/sessions.service.js';
import { SudoMode } from '../sign-in/sudo-mode.service.js';
import { TokensService } from '../tokens.service.js';

/** The token fields, as the page labels them in messages. */
const TOKEN_FIELDS = { name: 'The name', scopes: 'Scopes' };

/**
 * The account's API tokens: the list, a new token (shown once), revoking one. A token outlives
 * every session, so creating one needs sudo mode (a recent sign-in or confirmation), like adding
 * any other way in.
 */
@PageController()
@SignedIn()
export class TokensPagesController {
  constructor(
    private readonly tokens: TokensService,
    private readonly sudo: SudoMode,
    private readonly pages: Pages,
  ) {}

  @Get('/dashboard/tokens')
  async tokensPage(@Res() reply: FastifyReply, @CurrentSession() session: ActiveSession) {
    return this.renderTokens(reply, session, { form: { scopes: [...SCOPES] }, errors: {} });
  }

  @Post('/dashboard/tokens')
  @VerifiedEmailToCreate()
  async createToken(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @CurrentSession() session: ActiveSession,
  ) {
    if (!(await this.sudo.isFresh(session))) {
      const errors = {
        confirm:
          'Confirm it’s you first: creating a token needs your password, or a sign-in within the last 5 minutes.',
      };
      return this.renderTokens(reply, session, { form: { scopes: [...SCOPES] }, errors }, 403);
    }
    const form = request.body as Form;
    const name = field(form, 'name');
    const scopes = fieldList(form, 'scopes');
    try {
      const { token } = await this.tokens.create(session.accountId, name, scopes);
      // Shown on this response only: a reload or the list never shows it again.
      void reply.header('Cache-Control', 'no-store');
      return this.renderTokens(reply, session, { form: { scopes: [...SCOPES] }, errors: {}, newToken: token }, 201);
    } catch (error) {
      const errors = formErrors(error, TOKEN_FIELDS);
      return this.renderTokens(
        reply,
        session,
        { form: { name: name.trim(), scopes: scopes.filter(isScope) }, errors },
        400,
      );
    }
  }

  @Post('/dashboard/tokens/:id/revoke')
  async revokeToken(@Param('id') id: string, @Res() reply: FastifyReply, @CurrentSession() session: ActiveSession) {
    await this.tokens.revokeForAccount(session.accountId, id);
    return reply.redirect('/dashboard/tokens?revoked=1', 303);
  }

  private async renderTokens(reply: FastifyReply, session: ActiveSession, data: object, status = 200) {
    const tokens = await this.tokens.listForAccount(session.accountId);
    const query = reply.request.query as Record<string, unknown>;
    return this.pages.render(
      reply,
      'tokens',
      // An admin may also give a token the scope admin (never ticked at first).
      {
        ...data,
        session,
        tokens,
        scopes: session.isAdmin ? ALL_SCOPES : SCOPES,
        revoked: query.revoked === '1',
        confirmed: query.confirmed === '1',
        sudoFresh: await this.sudo.isFresh(session),
      },
      status,
    );
  }
}
