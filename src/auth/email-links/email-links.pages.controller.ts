import { Get, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { formErrors, field, Pages, type Form } from '../../pages/pages.js';
import { PageController } from '../../pages/page-controller.decorator.js';
import { CurrentSession, Public, SignedIn } from '../auth.decorators.js';
import type { ActiveSession } from '../sessions/sessions.service.js';
import { EmailVerification } from './email-verification.service.js';
import { PasswordResets, RESET_LINK_MINUTES } from './password-resets.service.js';

/** The new-password form's field, as the page labels it in messages. */
const NEW_PASSWORD_FIELDS = { password: 'The password' };

function minutesOf(seconds: number): string {
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

/**
 * The links sent by email: "Forgot password?" (`/password-reset`, then the email's
 * `/password-reset/{token}`) and the proof of a sign-up's address (`/signup/verify/{token}`, and
 * "Send again" from the dashboard).
 */
@PageController()
@Public()
export class EmailLinksPagesController {
  constructor(
    private readonly resets: PasswordResets,
    private readonly verification: EmailVerification,
    private readonly pages: Pages,
  ) {}

  @Get('/password-reset')
  askPage(@Res() reply: FastifyReply) {
    return this.pages.render(reply, 'password-reset', {
      step: 'ask',
      available: this.resets.available,
      form: {},
      errors: {},
    });
  }

  @Post('/password-reset')
  async ask(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const available = this.resets.available;
    const email = field(request.body as Form, 'email', 1000).trim();
    if (!available) return this.pages.render(reply, 'password-reset', { step: 'ask', available, form: {}, errors: {} });
    if (email === '') {
      const errors = { email: 'Enter the email of your account.' };
      return this.pages.render(reply, 'password-reset', { step: 'ask', available, form: { email }, errors }, 400);
    }
    const outcome = await this.resets.request(email, request.ip);
    if (outcome.outcome === 'limited') {
      void reply.header('Retry-After', String(outcome.retryAfterSeconds));
      const errors = { form: `Too many reset emails asked for. Try again in ${minutesOf(outcome.retryAfterSeconds)}.` };
      return this.pages.render(reply, 'password-reset', { step: 'ask', available, form: { email }, errors }, 429);
    }
    // The same page whether an account has this address or not; the rest once it has gone out.
    reply.raw.once('finish', outcome.sendAfterAnswer);
    return this.pages.render(reply, 'password-reset', { step: 'sent', available, email, minutes: RESET_LINK_MINUTES });
  }

  @Get('/password-reset/:token')
  async choosePage(@Res() reply: FastifyReply, @Param('token') token: string) {
    if (!(await this.resets.linkWorks(token))) return this.gone(reply);
    return this.pages.render(reply, 'password-reset', { step: 'choose', token, form: {}, errors: {} });
  }

  @Post('/password-reset/:token')
  async choose(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('token') token: string) {
    const password = field(request.body as Form, 'password', 1000);
    try {
      if (!(await this.resets.complete(token, password))) return this.gone(reply);
    } catch (error) {
      const errors = formErrors(error, NEW_PASSWORD_FIELDS);
      return this.pages.render(reply, 'password-reset', { step: 'choose', token, form: {}, errors }, 400);
    }
    return this.pages.render(reply, 'password-reset', { step: 'done' });
  }

  @Get('/signup/verify/:token')
  async verify(
    @Res() reply: FastifyReply,
    @Param('token') token: string,
    @CurrentSession() session: ActiveSession | null,
  ) {
    const verified = await this.verification.verify(token);
    return this.pages.render(reply, 'email-verified', { session, verified }, verified ? 200 : 410);
  }

  /** "Send again" on the dashboard of an account whose address is not proved yet. */
  @Post('/signup/verify/send')
  @SignedIn()
  async sendAgain(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @CurrentSession() session: ActiveSession,
  ) {
    if (session.emailVerified) return reply.redirect('/dashboard', 303);
    const wait = await this.verification.sendAgain(session.accountId, request.ip);
    if (wait !== null) {
      void reply.header('Retry-After', String(wait));
      return reply.redirect('/dashboard?verify=wait', 303);
    }
    return reply.redirect('/dashboard?verify=sent', 303);
  }

  private gone(reply: FastifyReply) {
    return this.pages.render(reply, 'password-reset', { step: 'gone' }, 410);
  }
}
