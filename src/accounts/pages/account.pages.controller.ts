import { Get, Inject, Param, Post, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AccountsService } from '../accounts.service.js';
import { isTotpSecret, newTotpSecret, totpUri } from '../two-factor.js';
import { CurrentSession, SignedIn } from '../../auth/auth.decorators.js';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/config.tokens.js';
import { qrCodeSvg } from '../../links/qr-code.js';
import { DashboardCookies } from '../../auth/sessions/dashboard-cookies.js';
import { PageController } from '../../pages/page-controller.decorator.js';
import { ApiError } from '../../common/errors/api-error.js';
import { field, formErrors, parseJson, Pages, type Errors, type Form } from '../../pages/pages.js';
import { PasskeysService } from '../../auth/sign-in/passkeys.service.js';
import { SessionsService, type ActiveSession } from '../../auth/sessions/sessions.service.js';
import { SignInChallenges } from '../../auth/sign-in/sign-in-challenges.service.js';
import { SignInLimits } from '../../auth/sign-in/sign-in-limits.service.js';
import { SudoMode, type SudoState } from '../../auth/sign-in/sudo-mode.service.js';

/** Pages whose changes need a recent sign-in, and that send people here to confirm it. */
const CONFIRM_RETURNS = ['/account', '/dashboard/tokens'];

/** Said where a change was refused because the session has not proved a factor lately. */
export const CONFIRM_FIRST =
  'Confirm it’s you first: changing how you sign in needs your password, or a sign-in within the last 5 minutes.';

/**
 * The account page: its ways to sign in, password, two-factor sign-in, passkeys, sessions,
 * deleting the account. Adding a way in needs a session that proved a factor lately (SudoMode).
 */
@PageController()
@SignedIn()
export class AccountPagesController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly sessions: SessionsService,
    private readonly signInLimits: SignInLimits,
    private readonly challenges: SignInChallenges,
    private readonly passkeys: PasskeysService,
    private readonly sudo: SudoMode,
    private readonly cookies: DashboardCookies,
    private readonly pages: Pages,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('/account')
  async accountPage(@Res() reply: FastifyReply, @CurrentSession() session: ActiveSession) {
    return this.renderAccount(reply, session, { errors: {} });
  }

  /**
   * Sudo mode: the password (and a code when two-factor sign-in is on) makes this session fresh
   * for 5 minutes, then back to the page that asked (`next`: the account or the tokens page).
   */
  @Post('/account/confirm')
  async confirm(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @CurrentSession() session: ActiveSession) {
    const form = request.body as Form;
    const next = CONFIRM_RETURNS.find((path) => path === field(form, 'next', 100)) ?? '/account';
    const check = await this.sudo.confirm(
      session,
      field(form, 'password', 1000),
      field(form, 'code', 100),
      this.pages.signInClient(request),
    );
    switch (check.outcome) {
      case 'confirmed':
        return reply.redirect(`${next}?confirmed=1`, 303);
      case 'limited': {
        void reply.header('Retry-After', String(check.retryAfterSeconds));
        const errors = { confirm: 'Too many wrong attempts. Wait a few minutes and try again.' };
        return this.renderAccount(reply, session, { errors, confirmNext: next }, 429);
      }
      case 'wrong': {
        const { enabled } = await this.accounts.twoFactorStatus(session.accountId);
        const errors = {
          confirm: enabled ? 'That is not your password, or the code is not right.' : 'That is not your password.',
        };
        return this.renderAccount(reply, session, { errors, confirmNext: next }, 400);
      }
      case 'sign-in-again': {
        const errors = { confirm: 'This account has no password: sign in again to confirm it’s you.' };
        return this.renderAccount(reply, session, { errors, confirmNext: next }, 400);
      }
    }
  }

  /** An account without a password confirms by signing in again: this session ends, sign-in brings it back. */
  @Post('/account/reauthenticate')
  async reauthenticate(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @CurrentSession() session: ActiveSession,
  ) {
    const next = CONFIRM_RETURNS.find((path) => path === field(request.body as Form, 'next', 100)) ?? '/account';
    await this.sessions.end(session.idHash);
    this.cookies.clear(reply, 'session');
    return reply.redirect(`/login?next=${encodeURIComponent(next)}`, 303);
  }

  @Post('/account/password')
  async changePassword(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @CurrentSession() session: ActiveSession,
  ) {
    const form = request.body as Form;
    const account = await this.accounts.get(session.accountId);
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
      // The password's rules, said next to the new password; anything else: the error page.
      const { password } = formErrors(error, { password: 'The new password' });
      return this.renderAccount(reply, session, { errors: { new_password: password } }, 400);
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
    if (!(await this.sudo.isFresh(session))) return this.refuseStale(reply, session);
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
    const account = await this.accounts.get(session.accountId);
    const client = this.pages.signInClient(request);
    // Without a password (an account of single sign-on or passkeys), a fresh sign-in stands in for it.
    const hasPassword = await this.accounts.hasPassword(account.id);
    if (!hasPassword && !(await this.sudo.isFresh(session))) return this.refuseStale(reply, session);
    const password = hasPassword
      ? await this.signInLimits.checkPassword(account.email, field(form, 'password', 1000), client)
      : ({ outcome: 'right' } as const);
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
    if (!(await this.sudo.isFresh(session))) {
      return reply.status(403).header('Cache-Control', 'no-store').send({ message: CONFIRM_FIRST });
    }
    const account = await this.accounts.get(session.accountId);
    try {
      const options = await this.passkeys.registrationOptions(account);
      // Bound to this session, which was fresh when it began (the ceremony may end a little later).
      const pending = await this.challenges.start('passkey-register', account.id, {
        challenge: options.challenge,
        session: session.idHash,
      });
      this.cookies.set(reply, 'challenge', pending);
      return reply.status(200).header('Cache-Control', 'no-store').send(options);
    } catch (error) {
      if (!(error instanceof ApiError && error.errorName === 'passkey_refused')) throw error;
      return reply.status(error.getStatus()).send({ message: error.detail });
    }
  }

  @Post('/account/passkeys')
  async addPasskey(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @CurrentSession() session: ActiveSession,
  ) {
    const form = request.body as Form;
    const pending = await this.challenges.consume<{ challenge: string; session?: string }>(
      this.cookies.read(request, 'challenge'),
      'passkey-register',
    );
    this.cookies.clear(reply, 'challenge');
    const refuse = (message: string) => this.renderAccount(reply, session, { errors: { passkey: message } }, 400);
    if (!pending || pending.accountId !== session.accountId || pending.data.session !== session.idHash) {
      if (!(await this.sudo.isFresh(session))) return this.refuseStale(reply, session);
      return refuse('Adding a passkey needs JavaScript, and must be finished within 5 minutes. Try again.');
    }
    try {
      await this.passkeys.register(
        session.accountId,
        field(form, 'name', 1000),
        parseJson(field(form, 'response', 60_000)),
        pending.data.challenge,
      );
    } catch (error) {
      if (!(error instanceof ApiError && error.errorName === 'passkey_refused')) throw error;
      return refuse(error.detail);
    }
    return reply.redirect('/account?passkey=added', 303);
  }

  @Post('/account/passkeys/:id/delete')
  async removePasskey(@Res() reply: FastifyReply, @Param('id') id: string, @CurrentSession() session: ActiveSession) {
    if (!(await this.sudo.isFresh(session))) return this.refuseStale(reply, session);
    await this.passkeys.remove(session.accountId, id);
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
    const account = await this.accounts.get(session.accountId);
    if (!this.accounts.isAddressOf(account, field(request.body as Form, 'confirm_email', 1000))) {
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

  /** A change that needs sudo mode, asked of a session that has not proved a factor lately: 403. */
  private refuseStale(reply: FastifyReply, session: ActiveSession) {
    return this.renderAccount(reply, session, { errors: { confirm: CONFIRM_FIRST } }, 403);
  }

  private async renderAccount(
    reply: FastifyReply,
    session: ActiveSession,
    data: { errors: Errors; totpSecret?: string; recoveryCodes?: string[]; confirmNext?: string },
    status = 200,
  ) {
    const account = await this.accounts.get(session.accountId);
    const query = reply.request.query as Record<string, unknown>;
    const twoFactor = await this.accounts.twoFactorStatus(session.accountId);
    const sudo: SudoState = await this.sudo.state(session);
    // Not on yet: a new secret for the owner's app (kept in the form, stored once a code proves
    // it); shown only to a session that may turn it on.
    const totpSecret = twoFactor.enabled || !sudo.fresh ? undefined : (data.totpSecret ?? newTotpSecret());
    const totpQr = totpSecret ? await qrCodeSvg(totpUri(totpSecret, account.email, this.totpIssuer())) : undefined;
    const passkeys = await this.passkeys.list(session.accountId);
    const confirmNext = data.confirmNext ?? CONFIRM_RETURNS.find((path) => path === query.next) ?? '/account';
    return this.pages.render(
      reply,
      'account',
      {
        ...data,
        session,
        account,
        sudo,
        confirmNext,
        confirmed: query.confirmed === '1',
        factors: await this.accounts.signInFactors(session.accountId),
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
