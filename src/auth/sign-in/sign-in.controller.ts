import { Get, Inject, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AccountsService } from '../../accounts/accounts.service.js';
import { checkEmail, printableEmail } from '../../accounts/email-address.js';
import { CurrentSession, FormTokenIfSignedIn, Public } from '../auth.decorators.js';
import { ApiError } from '../../common/errors/api-error.js';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/config.tokens.js';
import { OidcService, type OidcPending } from './oidc.service.js';
import { PageController } from '../../pages/page-controller.decorator.js';
import { field, formErrors, parseJson, Pages, type Form } from '../../pages/pages.js';
import { PasskeysService } from './passkeys.service.js';
import { DEFAULT_NEXT, safeNext } from '../../pages/safe-next.js';
import { SessionsService, type ActiveSession } from '../sessions/sessions.service.js';
import { SignInChallenges } from './sign-in-challenges.service.js';
import { SignInLimits } from './sign-in-limits.service.js';
import { DashboardCookies } from '../sessions/dashboard-cookies.js';
import { EmailVerification } from '../email-links/email-verification.service.js';

/** The sign-up form's fields, as the page labels them in messages. */
const SIGNUP_FIELDS = { email: 'This email', password: 'The password' };

/**
 * Signing up, in and out: password (then a TOTP code when the account has one), passkey, or the
 * OpenID Connect provider. Every way in ends in `Pages.finishSignIn` (a new session).
 */
@PageController()
@Public()
export class SignInController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly sessions: SessionsService,
    private readonly signInLimits: SignInLimits,
    private readonly challenges: SignInChallenges,
    private readonly passkeys: PasskeysService,
    private readonly oidc: OidcService,
    private readonly cookies: DashboardCookies,
    private readonly pages: Pages,
    private readonly verification: EmailVerification,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Whether people may create accounts here (SIGNUP `open` or `verify`). */
  private get signupOpen(): boolean {
    return this.config.signup !== 'closed';
  }

  @Get('/signup')
  async signupPage(@Res() reply: FastifyReply, @CurrentSession() session: ActiveSession | null) {
    if (session) return reply.redirect('/dashboard', 303);
    return this.pages.render(reply, 'signup', { form: {}, errors: {}, signupOpen: this.signupOpen });
  }

  @Post('/signup')
  async signup(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    if (!this.signupOpen) {
      return this.pages.render(reply, 'signup', { form: {}, errors: {}, signupOpen: false }, 403);
    }
    const form = request.body as Form;
    const email = field(form, 'email', 1000);
    const password = field(form, 'password', 1000);
    const wait = await this.signInLimits.countClientAttempt(request.ip);
    if (wait !== null) {
      void reply.header('Retry-After', String(wait));
      const errors = { form: 'Too many attempts from your network. Wait a few minutes and try again.' };
      return this.pages.render(reply, 'signup', { form: { email }, errors, signupOpen: true }, 429);
    }
    try {
      const verifyEmail = this.verification.required;
      const account = await this.accounts.register(email, password, { verifyEmail });
      // The link goes out in the background; the dashboard says to check the email meanwhile.
      if (verifyEmail) await this.verification.sendLink(account.id);
      await this.pages.finishSignIn(request, reply, account.id, await this.accounts.deviceCookie(account.id));
      return reply.redirect('/dashboard', 303);
    } catch (error) {
      // Refusals next to their fields (409 for a registered email); anything else: the error page.
      const errors = formErrors(error, SIGNUP_FIELDS);
      const status = error instanceof ApiError ? error.getStatus() : 400;
      return this.pages.render(reply, 'signup', { form: { email }, errors, signupOpen: true }, status);
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
    const password = field(form, 'password', 1000);
    const target = safeNext(field(form, 'next', 2000) || next);
    const check = await this.signInLimits.checkPassword(email, password, this.pages.signInClient(request));
    if (check.outcome === 'limited') {
      void reply.header('Retry-After', String(check.retryAfterSeconds));
      return this.pages.render(
        reply,
        'login',
        {
          form: { email },
          errors: { form: 'Too many sign-in attempts. Wait a few minutes and try again.' },
          next: target,
        },
        429,
      );
    }
    if (check.outcome === 'wrong') {
      return this.pages.render(
        reply,
        'login',
        { form: { email }, errors: { form: 'That email and password do not match an account.' }, next: target },
        401,
      );
    }
    if (check.account.disabled_at !== null) {
      // Said only to whoever proved the password: to anyone else it is a wrong password.
      const errors = { form: 'This account has been disabled by the administrators of this service.' };
      return this.pages.render(reply, 'login', { form: { email }, errors, next: target }, 403);
    }
    if ((await this.accounts.twoFactorStatus(check.account.id)).enabled) {
      // The password is proved; the session waits for the second factor (one step, 5 minutes).
      const pending = await this.challenges.start('totp', check.account.id, { next: target });
      this.cookies.set(reply, 'challenge', pending);
      return reply.redirect('/login/code', 303);
    }
    await this.pages.finishSignIn(request, reply, check.account.id, check.deviceCookie);
    return reply.redirect(target, 303);
  }

  /** The challenge for "Sign in with a passkey" (any passkey of this site: discoverable credentials). */
  @Post('/login/passkey/options')
  async passkeySignInOptions(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const options = await this.passkeys.signInOptions();
    const pending = await this.challenges.start('passkey-sign-in', null, { challenge: options.challenge });
    this.cookies.set(reply, 'challenge', pending);
    return reply.status(200).header('Cache-Control', 'no-store').send(options);
  }

  /** Signs in with the browser's passkey answer: no password, no code (the passkey is both). */
  @Post('/login/passkey')
  async passkeySignIn(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Query('next') next: unknown) {
    const form = request.body as Form;
    const target = safeNext(field(form, 'next', 2000) || next);
    const refuse = (message: string, status: number) =>
      this.pages.render(reply, 'login', { form: {}, errors: { form: message }, next: target }, status);
    const wait = await this.signInLimits.countClientAttempt(request.ip);
    if (wait !== null) {
      void reply.header('Retry-After', String(wait));
      return refuse('Too many sign-in attempts. Wait a few minutes and try again.', 429);
    }
    const pending = await this.challenges.consume<{ challenge: string }>(
      this.cookies.read(request, 'challenge'),
      'passkey-sign-in',
    );
    this.cookies.clear(reply, 'challenge');
    if (!pending) return refuse('That passkey sign-in has expired. Try again.', 400);
    try {
      const accountId = await this.passkeys.signIn(parseJson(field(form, 'response', 60_000)), pending.data.challenge);
      await this.pages.finishSignIn(request, reply, accountId, await this.accounts.deviceCookie(accountId));
      return reply.redirect(target, 303);
    } catch (error) {
      if (!(error instanceof ApiError && error.errorName === 'passkey_refused')) throw error;
      return refuse(`That passkey did not sign you in. ${error.detail}`, error.getStatus());
    }
  }

  /** Single sign-on: off to the provider, with PKCE, state and nonce kept in a sign-in step. */
  @Get('/login/oidc')
  async singleSignOn(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Query('next') next: unknown) {
    // Not set up (404) or the provider down (503): the error page says so.
    const { url, pending } = await this.oidc.start(safeNext(next));
    const id = await this.challenges.start('oidc', null, pending);
    this.cookies.set(reply, 'challenge', id);
    return reply.redirect(url, 303);
  }

  /** The provider sends the browser back here: one use of the step, then the account by verified email. */
  @Get('/login/oidc/callback')
  async singleSignOnCallback(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    this.oidc.assertSetUp();
    const refuse = (message: string, status: number) =>
      this.pages.render(reply, 'login', { form: {}, errors: { form: message }, next: DEFAULT_NEXT }, status);
    const wait = await this.signInLimits.countClientAttempt(request.ip);
    if (wait !== null) {
      void reply.header('Retry-After', String(wait));
      return refuse('Too many sign-in attempts. Wait a few minutes and try again.', 429);
    }
    const pending = await this.challenges.consume<OidcPending>(this.cookies.read(request, 'challenge'), 'oidc');
    this.cookies.clear(reply, 'challenge');
    if (!pending)
      return refuse(`That sign-in with ${this.oidc.name} has expired, or was used already. Try again.`, 400);
    let email: string;
    try {
      const queryAt = request.url.indexOf('?');
      email = await this.oidc.finish(queryAt === -1 ? '' : request.url.slice(queryAt), pending.data);
    } catch (error) {
      // The provider down (503 `sso_unavailable`) goes on to the error page; a refusal is said here.
      if (!(error instanceof ApiError && error.errorName === 'unauthorized')) throw error;
      return refuse(`${this.oidc.name} did not sign you in: ${error.detail}.`, error.getStatus());
    }
    // The provider's address follows the rule of every address here: a NUL, an invisible
    // character or 300 characters make no account (nor a 500 from the database).
    const checked = checkEmail(email);
    if (!checked.ok) {
      const shown = printableEmail(email);
      return refuse(
        `${this.oidc.name} gave the address ${shown}, which cannot be used for an account here. ${checked.problem}`,
        403,
      );
    }
    email = checked.email;
    let account = await this.accounts.findByEmail(email);
    if (!account) {
      if (!this.signupOpen) {
        return refuse(`There is no account for ${email}, and sign-up is closed on this server.`, 403);
      }
      try {
        account = await this.accounts.create(email);
      } catch (error) {
        // Not an address this service takes, or made a moment ago by another sign-in.
        if (!(error instanceof ApiError)) throw error;
        account = await this.accounts.findByEmail(email);
        if (!account) return refuse(`${email} cannot be used for an account here.`, 403);
      }
    }
    await this.pages.finishSignIn(request, reply, account.id, null);
    return reply.redirect(safeNext(pending.data.next), 303);
  }

  @Get('/login/code')
  async secondFactorPage(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const pending = await this.challenges.find(this.cookies.read(request, 'challenge'), 'totp');
    if (!pending) return reply.redirect('/login', 303);
    return this.pages.render(reply, 'login-code', { errors: {} });
  }

  @Post('/login/code')
  async secondFactor(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const challengeId = this.cookies.read(request, 'challenge');
    const pending = await this.challenges.find<{ next: string }>(challengeId, 'totp');
    const account = pending?.accountId ? await this.accounts.findById(pending.accountId) : null;
    if (!pending || !account) return reply.redirect('/login', 303);
    const code = field(request.body as Form, 'code', 100);
    const check = await this.signInLimits.checkSecondFactor(account, code, this.pages.signInClient(request));
    if (check.outcome === 'limited') {
      void reply.header('Retry-After', String(check.retryAfterSeconds));
      const errors = { code: 'Too many wrong codes. Wait a few minutes and try again.' };
      return this.pages.render(reply, 'login-code', { errors }, 429);
    }
    if (check.outcome === 'wrong') {
      const errors = { code: 'That code is not right, or was used already. Enter the newest code from your app.' };
      return this.pages.render(reply, 'login-code', { errors }, 401);
    }
    // One sign-in per proved password: a second request with the same step finds it used.
    if (!(await this.challenges.consume(challengeId, 'totp'))) return reply.redirect('/login', 303);
    this.cookies.clear(reply, 'challenge');
    await this.pages.finishSignIn(request, reply, account.id, await this.accounts.deviceCookie(account.id));
    return reply.redirect(safeNext(pending.data.next), 303);
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
}
