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
import { field, formErrors, parseJson, Pages, type Errors, type Form } from '../../pages/pages.js';
import { PasskeysService } from '../../auth/sign-in/passkeys.service.js';
import { SessionsService, type ActiveSession } from '../../auth/sessions/sessions.service.js';
import { SignInFlow } from '../../auth/sign-in/sign-in-flow.service.js';
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
    private readonly signInFlow: SignInFlow,
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
    const result = await this.signInFlow.changePassword(
      session,
      field(form, 'current_password', 1000),
      field(form, 'new_password', 1000),
      this.pages.signInClient(request),
    );
    switch (result.outcome) {
      case 'limited': {
        void reply.header('Retry-After', String(result.retryAfterSeconds));
        const errors = { current_password: 'Too many wrong passwords. Wait a few minutes and try again.' };
        return this.renderAccount(reply, session, { errors }, 429);
      }
      case 'wrong': {
        const errors = { current_password: 'That is not your current password.' };
        return this.renderAccount(reply, session, { errors }, 400);
      }
      case 'invalid': {
        // The password's rules, said next to the new password; anything else: the error page.
        const { password } = formErrors(result.error, { password: 'The new password' });
        return this.renderAccount(reply, session, { errors: { new_password: password } }, 400);
      }
      case 'done':
        // The new password retires every device cookie; this browser just proved it and keeps one.
        this.pages.keepDevice(reply, result.deviceCookie);
    }
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
    const result = await this.signInFlow.enableTwoFactor(session, secret, field(form, 'code', 100));
    if (result.outcome === 'stale') return this.refuseStale(reply, session);
    const { recoveryCodes } = result;
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
    const result = await this.signInFlow.disableTwoFactor(
      session,
      field(form, 'password', 1000),
      field(form, 'code', 100),
      this.pages.signInClient(request),
    );
    if (result.outcome === 'stale') return this.refuseStale(reply, session);
    if (result.outcome === 'limited') {
      void reply.header('Retry-After', String(result.retryAfterSeconds));
      const errors = { disable: 'Too many wrong attempts. Wait a few minutes and try again.' };
      return this.renderAccount(reply, session, { errors }, 429);
    }
    if (result.outcome === 'wrong') {
      const errors = { disable: 'The password or the code is not right.' };
      return this.renderAccount(reply, session, { errors }, 400);
    }
    return reply.redirect('/account?two_factor=off', 303);
  }

  /** The challenge for "Add a passkey" (script calls this, then posts the browser's answer). */
  @Post('/account/passkeys/options')
  async passkeyRegistrationOptions(@Res() reply: FastifyReply, @CurrentSession() session: ActiveSession) {
    const result = await this.signInFlow.passkeyRegistrationStart(session);
    switch (result.outcome) {
      case 'stale':
        return reply.status(403).header('Cache-Control', 'no-store').send({ message: CONFIRM_FIRST });
      case 'refused':
        return reply.status(result.status).send({ message: result.message });
      case 'options':
        this.cookies.set(reply, 'challenge', result.challengeId);
        return reply.status(200).header('Cache-Control', 'no-store').send(result.options);
    }
  }

  @Post('/account/passkeys')
  async addPasskey(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @CurrentSession() session: ActiveSession,
  ) {
    const form = request.body as Form;
    const result = await this.signInFlow.passkeyRegistrationFinish(
      session,
      this.cookies.read(request, 'challenge'),
      field(form, 'name', 1000),
      parseJson(field(form, 'response', 60_000)),
    );
    this.cookies.clear(reply, 'challenge');
    if (result.outcome === 'stale') return this.refuseStale(reply, session);
    if (result.outcome === 'refused')
      return this.renderAccount(reply, session, { errors: { passkey: result.message } }, 400);
    return reply.redirect('/account?passkey=added', 303);
  }

  @Post('/account/passkeys/:id/delete')
  async removePasskey(@Res() reply: FastifyReply, @Param('id') id: string, @CurrentSession() session: ActiveSession) {
    if ((await this.signInFlow.removePasskey(session, id)).outcome === 'stale') return this.refuseStale(reply, session);
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
