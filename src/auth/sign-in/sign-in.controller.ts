import { Get, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentSession, FormTokenIfSignedIn, Public } from '../auth.decorators.js';
import { ApiError } from '../../common/errors/api-error.js';
import { PageController } from '../../pages/page-controller.decorator.js';
import { field, formErrors, parseJson, Pages, type Form } from '../../pages/pages.js';
import { DEFAULT_NEXT, safeNext } from '../../pages/safe-next.js';
import { SessionsService, type ActiveSession } from '../sessions/sessions.service.js';
import { DashboardCookies } from '../sessions/dashboard-cookies.js';
import { SignInFlow, type Limited, type Refused, type SignedIn } from './sign-in-flow.service.js';

/** The sign-up form's fields, as the page labels them in messages. */
const SIGNUP_FIELDS = { email: 'This email', password: 'The password' };
const TOO_MANY_SIGN_INS = 'Too many sign-in attempts. Wait a few minutes and try again.';

/**
 * Signing up, in and out: password (then a TOTP code when the account has one), passkey, or the
 * OpenID Connect provider. The rules are SignInFlow's; this turns its outcomes into pages,
 * cookies and redirects. Every way in ends in `Pages.finishSignIn` (a new session).
 */
@PageController()
@Public()
export class SignInController {
  constructor(
    private readonly flow: SignInFlow,
    private readonly sessions: SessionsService,
    private readonly cookies: DashboardCookies,
    private readonly pages: Pages,
  ) {}

  @Get('/signup')
  async signupPage(@Res() reply: FastifyReply, @CurrentSession() session: ActiveSession | null) {
    if (session) return reply.redirect('/dashboard', 303);
    return this.pages.render(reply, 'signup', { form: {}, errors: {}, signupOpen: this.flow.signupOpen });
  }

  @Post('/signup')
  async signup(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const form = request.body as Form;
    const email = field(form, 'email', 1000);
    const result = await this.flow.signUp(email, field(form, 'password', 1000), request.ip);
    switch (result.outcome) {
      case 'closed':
        return this.pages.render(reply, 'signup', { form: {}, errors: {}, signupOpen: false }, 403);
      case 'limited': {
        void reply.header('Retry-After', String(result.retryAfterSeconds));
        const errors = { form: 'Too many attempts from your network. Wait a few minutes and try again.' };
        return this.pages.render(reply, 'signup', { form: { email }, errors, signupOpen: true }, 429);
      }
      case 'invalid': {
        // Refusals next to their fields (409 for a registered email); anything else: the error page.
        const errors = formErrors(result.error, SIGNUP_FIELDS);
        const status = result.error instanceof ApiError ? result.error.getStatus() : 400;
        return this.pages.render(reply, 'signup', { form: { email }, errors, signupOpen: true }, status);
      }
      case 'signed-in':
        // Under SIGNUP=verify the dashboard says to check the email meanwhile.
        return this.finish(request, reply, { ...result, next: DEFAULT_NEXT });
    }
  }

  @Get('/login')
  async loginPage(
    @Res() reply: FastifyReply,
    @Query('next') next: unknown,
    @CurrentSession() session: ActiveSession | null,
  ) {
    if (session) return reply.redirect(safeNext(next), 303);
    return this.pages.render(reply, 'login', { form: {}, errors: {}, next: safeNext(next) });
  }

  @Post('/login')
  async login(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Query('next') next: unknown) {
    const form = request.body as Form;
    const email = field(form, 'email', 1000);
    const target = safeNext(field(form, 'next', 2000) || next);
    const result = await this.flow.passwordStep(
      email,
      field(form, 'password', 1000),
      this.pages.signInClient(request),
      target,
    );
    const refuse = (message: string, status: number) =>
      this.pages.render(reply, 'login', { form: { email }, errors: { form: message }, next: target }, status);
    switch (result.outcome) {
      case 'limited':
        void reply.header('Retry-After', String(result.retryAfterSeconds));
        return refuse(TOO_MANY_SIGN_INS, 429);
      case 'wrong':
        return refuse('That email and password do not match an account.', 401);
      case 'disabled':
        return refuse('This account has been disabled by the administrators of this service.', 403);
      case 'second-factor':
        this.cookies.set(reply, 'challenge', result.challengeId);
        return reply.redirect('/login/code', 303);
      case 'signed-in':
        return this.finish(request, reply, result);
    }
  }

  /** The challenge for "Sign in with a passkey" (any passkey of this site: discoverable credentials). */
  @Post('/login/passkey/options')
  async passkeySignInOptions(@Res() reply: FastifyReply) {
    const { options, challengeId } = await this.flow.passkeyOptions();
    this.cookies.set(reply, 'challenge', challengeId);
    return reply.status(200).header('Cache-Control', 'no-store').send(options);
  }

  /** Signs in with the browser's passkey answer. */
  @Post('/login/passkey')
  async passkeySignIn(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Query('next') next: unknown) {
    const form = request.body as Form;
    const target = safeNext(field(form, 'next', 2000) || next);
    const challengeId = this.cookies.read(request, 'challenge');
    const response = parseJson(field(form, 'response', 60_000));
    const result = await this.flow.passkeyStep(challengeId, response, request.ip, target);
    if (result.outcome !== 'limited') this.cookies.clear(reply, 'challenge');
    return this.answer(request, reply, result, target);
  }

  /** Single sign-on: off to the provider. */
  @Get('/login/oidc')
  async singleSignOn(@Res() reply: FastifyReply, @Query('next') next: unknown) {
    const { url, challengeId } = await this.flow.singleSignOnStart(safeNext(next));
    this.cookies.set(reply, 'challenge', challengeId);
    return reply.redirect(url, 303);
  }

  /** The provider sends the browser back here. */
  @Get('/login/oidc/callback')
  async singleSignOnCallback(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const queryAt = request.url.indexOf('?');
    const result = await this.flow.singleSignOnFinish(
      this.cookies.read(request, 'challenge'),
      queryAt === -1 ? '' : request.url.slice(queryAt),
      request.ip,
    );
    if (result.outcome !== 'limited') this.cookies.clear(reply, 'challenge');
    return this.answer(request, reply, result, DEFAULT_NEXT);
  }

  @Get('/login/code')
  async secondFactorPage(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    if (!(await this.flow.secondFactorPending(this.cookies.read(request, 'challenge')))) {
      return reply.redirect('/login', 303);
    }
    return this.pages.render(reply, 'login-code', { errors: {} });
  }

  @Post('/login/code')
  async secondFactor(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const result = await this.flow.secondFactorStep(
      this.cookies.read(request, 'challenge'),
      field(request.body as Form, 'code', 100),
      this.pages.signInClient(request),
    );
    switch (result.outcome) {
      case 'no-step':
        return reply.redirect('/login', 303);
      case 'limited': {
        void reply.header('Retry-After', String(result.retryAfterSeconds));
        const errors = { code: 'Too many wrong codes. Wait a few minutes and try again.' };
        return this.pages.render(reply, 'login-code', { errors }, 429);
      }
      case 'wrong': {
        const errors = { code: 'That code is not right, or was used already. Enter the newest code from your app.' };
        return this.pages.render(reply, 'login-code', { errors }, 401);
      }
      case 'signed-in':
        this.cookies.clear(reply, 'challenge');
        return this.finish(request, reply, result);
    }
  }

  @Post('/logout')
  @FormTokenIfSignedIn()
  async logout(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @CurrentSession() session: ActiveSession | null,
  ) {
    // Without a live session there is nothing to end, and nothing a forged form could do (the
    // guard asks the form's token of a signed-in visitor only).
    if (session) await this.sessions.end(session.idHash);
    this.cookies.clear(reply, 'session');
    return reply.redirect('/login', 303);
  }

  /** The answer to a passkey or single sign-on: the session, or the sign-in page saying why not. */
  private answer(
    request: FastifyRequest,
    reply: FastifyReply,
    result: SignedIn | Limited | Refused,
    next: string,
  ): Promise<unknown> {
    const refuse = (message: string, status: number) =>
      this.pages.render(reply, 'login', { form: {}, errors: { form: message }, next }, status);
    switch (result.outcome) {
      case 'limited':
        void reply.header('Retry-After', String(result.retryAfterSeconds));
        return refuse(TOO_MANY_SIGN_INS, 429);
      case 'refused':
        return refuse(result.message, result.status);
      case 'signed-in':
        return this.finish(request, reply, result);
    }
  }

  /** A new session (ending the visitor's previous one), the device cookie, then `next`. */
  private async finish(request: FastifyRequest, reply: FastifyReply, signedIn: SignedIn): Promise<unknown> {
    await this.pages.finishSignIn(request, reply, signedIn.accountId, signedIn.deviceCookie);
    return reply.redirect(signedIn.next, 303);
  }
}
