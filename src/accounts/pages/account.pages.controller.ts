import { Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AccountInputError, AccountsService } from '../accounts.service.js';
import { isTotpSecret, newTotpSecret, totpUri } from '../two-factor.js';
import { CurrentSession, SignedIn } from '../../auth/auth.decorators.js';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/config.tokens.js';
import { qrCodeSvg } from '../../links/qr-code.js';
import { DashboardCookies } from '../../auth/sessions/dashboard-cookies.js';
import { PageController } from '../../pages/page-controller.decorator.js';
import { PageError } from '../../pages/page-error.filter.js';
import { field, parseJson, Pages, type Errors, type Form } from '../../pages/pages.js';
import { PasskeyError, PasskeysService } from '../../auth/sign-in/passkeys.service.js';
import { SessionsService, type ActiveSession } from '../../auth/sessions/sessions.service.js';
import { SignInChallenges } from '../../auth/sign-in/sign-in-challenges.service.js';
import { SignInLimits } from '../../auth/sign-in/sign-in-limits.service.js';

/** The account page: password, two-factor sign-in, passkeys, sessions, deleting the account. */
@PageController()
@SignedIn()
export class AccountPagesController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly sessions: SessionsService,
    private readonly signInLimits: SignInLimits,
    private readonly challenges: SignInChallenges,
    private readonly passkeys: PasskeysService,
    private readonly cookies: DashboardCookies,
    private readonly pages: Pages,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('/account')
  async accountPage(@Res() reply: FastifyReply, @CurrentSession() session: ActiveSession) {
    return this.renderAccount(reply, session, { errors: {} });
  }

  @Post('/account/password')
  async changePassword(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @CurrentSession() session: ActiveSession,
  ) {
    const form = request.body as Form;
    const account = await this.accounts.findById(session.accountId);
    if (!account) throw new PageError(404, 'No such account');
    // The same limits as signing in: a session left open must not be a way to guess the password.
    const check = await this.signInLimits.checkPassword(
      account.email,
      field(form, 'current_password', 1000),
      this.pages.signInClient(request),
    );
    if (check.outcome === 'limited') {
      void reply.header('Retry-After', String(check.retryAfterSeconds));
      return this.renderAccount(
        reply,
        session,
        { errors: { current_password: 'Too many wrong passwords. Wait a few minutes and try again.' } },
        429,
      );
    }
    if (check.outcome === 'wrong') {
      return this.renderAccount(
        reply,
        session,
        { errors: { current_password: 'That is not your current password.' } },
        400,
      );
    }
    try {
      await this.accounts.setPassword(session.accountId, field(form, 'new_password', 1000), session.idHash);
    } catch (error) {
      if (!(error instanceof AccountInputError)) throw error;
      return this.renderAccount(reply, session, { errors: { new_password: error.message } }, 400);
    }
    // The new password retires every device cookie; this browser just proved it and keeps one.
    this.pages.keepDevice(reply, await this.accounts.deviceCookie(session.accountId));
    return reply.redirect('/account?password=changed', 303);
  }

  /** Turns two-factor sign-in on: the code proves the app holds the secret the page showed. */
  @Post('/account/two-factor')
  async enableTwoFactor(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @CurrentSession() session: ActiveSession,
  ) {
    const form = request.body as Form;
    const secret = field(form, 'totp_secret', 100);
    const recoveryCodes = await this.accounts.enableTotp(session.accountId, secret, field(form, 'code', 100));
    if (!recoveryCodes) {
      const errors = { totp_code: 'That code does not match. Enter the code your app shows now.' };
      return this.renderAccount(reply, session, { errors, totpSecret: isTotpSecret(secret) ? secret : undefined }, 400);
    }
    // Shown on this answer only, like a new API token.
    return this.renderAccount(reply, session, { errors: {}, recoveryCodes });
  }

  /** Turns two-factor sign-in off: the password and a code, both counted like a sign-in. */
  @Post('/account/two-factor/delete')
  async disableTwoFactor(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @CurrentSession() session: ActiveSession,
  ) {
    const form = request.body as Form;
    const account = await this.accounts.findById(session.accountId);
    if (!account) throw new PageError(404, 'No such account');
    const client = this.pages.signInClient(request);
    const password = await this.signInLimits.checkPassword(account.email, field(form, 'password', 1000), client);
    const check =
      password.outcome === 'right'
        ? await this.signInLimits.checkSecondFactor(account, field(form, 'code', 100), client)
        : password;
    if (check.outcome === 'limited') {
      void reply.header('Retry-After', String(check.retryAfterSeconds));
      const errors = { disable: 'Too many wrong attempts. Wait a few minutes and try again.' };
      return this.renderAccount(reply, session, { errors }, 429);
    }
    if (check.outcome === 'wrong') {
      const errors = { disable: 'The password or the code is not right.' };
      return this.renderAccount(reply, session, { errors }, 400);
    }
    await this.accounts.disableTotp(session.accountId);
    return reply.redirect('/account?two_factor=off', 303);
  }

  /** The challenge for "Add a passkey" (script calls this, then posts the browser's answer). */
  @Post('/account/passkeys/options')
  async passkeyRegistrationOptions(@Res() reply: FastifyReply, @CurrentSession() session: ActiveSession) {
    const account = await this.accounts.findById(session.accountId);
    if (!account) throw new PageError(404, 'No such account');
    try {
      const options = await this.passkeys.registrationOptions(account);
      const pending = await this.challenges.start('passkey-register', account.id, { challenge: options.challenge });
      this.cookies.set(reply, 'challenge', pending);
      return reply.status(200).header('Cache-Control', 'no-store').send(options);
    } catch (error) {
      if (!(error instanceof PasskeyError)) throw error;
      return reply.status(400).send({ message: error.message });
    }
  }

  @Post('/account/passkeys')
  async addPasskey(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @CurrentSession() session: ActiveSession,
  ) {
    const form = request.body as Form;
    const pending = await this.challenges.consume<{ challenge: string }>(
      this.cookies.read(request, 'challenge'),
      'passkey-register',
    );
    this.cookies.clear(reply, 'challenge');
    try {
      if (!pending || pending.accountId !== session.accountId) {
        throw new PasskeyError('Adding a passkey needs JavaScript, and must be finished within 5 minutes. Try again.');
      }
      await this.passkeys.register(
        session.accountId,
        field(form, 'name', 1000),
        parseJson(field(form, 'response', 60_000)),
        pending.data.challenge,
      );
    } catch (error) {
      if (!(error instanceof PasskeyError)) throw error;
      return this.renderAccount(reply, session, { errors: { passkey: error.message } }, 400);
    }
    return reply.redirect('/account?passkey=added', 303);
  }

  @Post('/account/passkeys/:id/delete')
  async removePasskey(@Res() reply: FastifyReply, @Param('id') id: string, @CurrentSession() session: ActiveSession) {
    if (!(await this.passkeys.remove(session.accountId, id))) throw new PageError(404, 'No such passkey');
    return reply.redirect('/account?passkey=removed', 303);
  }

  @Post('/account/sessions/delete')
  async signOutEverywhere(@Res() reply: FastifyReply, @CurrentSession() session: ActiveSession) {
    await this.sessions.endAllBut(session.accountId);
    this.cookies.clear(reply, 'session');
    return reply.redirect('/login', 303);
  }

  @Post('/account/delete')
  async deleteAccount(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @CurrentSession() session: ActiveSession,
  ) {
    const account = await this.accounts.findById(session.accountId);
    if (!account) throw new PageError(404, 'No such account');
    const typed = field(request.body as Form, 'confirm_email', 1000)
      .trim()
      .toLowerCase();
    if (typed !== account.email) {
      return this.renderAccount(
        reply,
        session,
        { errors: { confirm_email: 'Type your email address exactly to confirm.' } },
        400,
      );
    }
    await this.accounts.delete(account.id);
    this.cookies.clear(reply, 'session');
    return reply.redirect('/?deleted=1', 303);
  }

  private async renderAccount(
    reply: FastifyReply,
    session: ActiveSession,
    data: { errors: Errors; totpSecret?: string; recoveryCodes?: string[] },
    status = 200,
  ) {
    const account = await this.accounts.findById(session.accountId);
    if (!account) throw new PageError(404, 'No such account');
    const query = reply.request.query as Record<string, unknown>;
    const twoFactor = await this.accounts.twoFactorStatus(session.accountId);
    // Not on yet: a new secret for the owner's app (kept in the form, stored once a code proves it).
    const totpSecret = twoFactor.enabled ? undefined : (data.totpSecret ?? newTotpSecret());
    const totpQr = totpSecret ? await qrCodeSvg(totpUri(totpSecret, account.email, this.totpIssuer())) : undefined;
    const passkeys = await this.passkeys.list(session.accountId);
    return this.pages.render(
      reply,
      'account',
      {
        ...data,
        session,
        account,
        twoFactor,
        totpSecret,
        totpQr,
        passwordChanged: query.password === 'changed',
        twoFactorOff: query.two_factor === 'off',
        passkeys,
        passkeyAdded: query.passkey === 'added',
        passkeyRemoved: query.passkey === 'removed',
      },
      status,
    );
  }

  /** The name authenticator apps list the account under: this instance's host. */
  private totpIssuer(): string {
    return `shortlink (${new URL(this.config.shortBaseUrl).host})`;
  }
}
