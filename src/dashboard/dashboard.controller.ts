import { Controller, Get, Inject, Param, Post, Query, Req, Res, UseFilters } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AccountExistsError, AccountInputError, AccountsService } from '../accounts/accounts.service.js';
import { Public } from '../auth/auth.decorators.js';
import { isScope, SCOPES, type Scope } from '../auth/scopes.js';
import { TokensService } from '../auth/tokens.service.js';
import { ApiError } from '../common/errors/api-error.js';
import { ClicksService } from '../clicks/clicks.service.js';
import { DEFAULT_CLICK_DAYS } from '../clicks/dto/link-clicks.dto.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.tokens.js';
import { MAX_SEARCH_LENGTH } from '../links/dto/list-links-query.dto.js';
import type { LinkDto } from '../links/dto/link.dto.js';
import { LinksService } from '../links/links.service.js';
import { qrCodeSvg } from '../links/qr-code.js';
import { AnonymousCreation } from '../rate-limit/rate-limit.decorators.js';
import { clickChart } from './click-chart.js';
import { expiryForForm, expiryFromForm } from './expiry-field.js';
import { CsrfTokens } from './csrf-tokens.js';
import { DashboardCookies } from './dashboard-cookies.js';
import { PageErrorFilter, PageError } from './page-error.filter.js';
import { DEFAULT_NEXT, safeNext } from './safe-next.js';
import { SessionsService, type ActiveSession } from './sessions.service.js';
import { SignInLimits } from './sign-in-limits.service.js';
import { SignInChallenges } from './sign-in-challenges.service.js';
import { PasskeyError, PasskeysService } from './passkeys.service.js';
import { OidcRefusedError, OidcService, OidcUnavailableError, type OidcPending } from './oidc.service.js';
import { isTotpSecret, newTotpSecret, totpUri } from '../accounts/two-factor.js';

type Form = Record<string, string | string[] | undefined>;
type Errors = Record<string, string>;

const PAGE_SIZE = 20;
/** How long a browser's device cookie lasts (it is renewed at every sign-in). */
const DEVICE_COOKIE_MAX_AGE_SECONDS = 365 * 24 * 60 * 60;
const TOKEN_NAME_MAX_LENGTH = 100;

/** A JSON field of a form (the browser's WebAuthn answer); null when it is not JSON. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** One value of a form field (a repeated field counts as its first value); never undefined. */
function field(form: Form | undefined, name: string, maxLength = 10_000): string {
  const value = form?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return (first ?? '').slice(0, maxLength);
}

function fieldList(form: Form | undefined, name: string): string[] {
  const value = form?.[name];
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/** The dashboard's pages: HTML for people, on the same services as the JSON API. */
@ApiExcludeController()
@Controller()
@Public()
@UseFilters(PageErrorFilter)
export class DashboardController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly sessions: SessionsService,
    private readonly links: LinksService,
    private readonly tokens: TokensService,
    private readonly clicks: ClicksService,
    private readonly signInLimits: SignInLimits,
    private readonly challenges: SignInChallenges,
    private readonly passkeys: PasskeysService,
    private readonly oidc: OidcService,
    private readonly csrf: CsrfTokens,
    private readonly cookies: DashboardCookies,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  // ---- front page --------------------------------------------------------------------------

  @Get('/')
  async home(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    if (await this.session(request)) return reply.redirect('/dashboard', 303);
    return this.render(reply, 'home', { form: {}, errors: {} });
  }

  @Post('/')
  @AnonymousCreation()
  async shortenAnonymously(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    this.checkCsrf(request, false);
    const form = request.body as Form;
    const url = field(form, 'url');
    try {
      const link = await this.links.create(undefined, { url });
      return this.render(reply, 'home', { form: {}, errors: {}, created: link });
    } catch (error) {
      return this.render(reply, 'home', { form: { url }, errors: this.linkErrors(error) }, 400);
    }
  }

  // ---- sign up, sign in, sign out ---------------------------------------------------------

  @Get('/signup')
  async signupPage(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    if (await this.session(request)) return reply.redirect('/dashboard', 303);
    return this.render(reply, 'signup', { form: {}, errors: {}, signupOpen: this.config.signupOpen });
  }

  @Post('/signup')
  async signup(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    this.checkCsrf(request, false);
    if (!this.config.signupOpen) {
      return this.render(reply, 'signup', { form: {}, errors: {}, signupOpen: false }, 403);
    }
    const form = request.body as Form;
    const email = field(form, 'email', 1000);
    const password = field(form, 'password', 1000);
    const wait = await this.signInLimits.checkSignUp(request.ip);
    if (wait !== null) {
      void reply.header('Retry-After', String(wait));
      const errors = { form: 'Too many attempts from your network. Wait a few minutes and try again.' };
      return this.render(reply, 'signup', { form: { email }, errors, signupOpen: true }, 429);
    }
    try {
      const account = await this.accounts.register(email, password);
      await this.signIn(reply, account.id);
      this.keepDevice(reply, await this.accounts.deviceCookie(account.id));
      return reply.redirect('/dashboard', 303);
    } catch (error) {
      const errors: Errors = {};
      if (error instanceof AccountInputError) errors[error.field] = error.message;
      else if (error instanceof AccountExistsError) errors.email = 'This email is already registered. Sign in instead.';
      else throw error;
      const status = error instanceof AccountExistsError ? 409 : 400;
      return this.render(reply, 'signup', { form: { email }, errors, signupOpen: true }, status);
    }
  }

  @Get('/login')
  async loginPage(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Query('next') next: unknown) {
    if (await this.session(request)) return reply.redirect(safeNext(next), 303);
    return this.render(reply, 'login', { form: {}, errors: {}, next: safeNext(next) });
  }

  @Post('/login')
  async login(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Query('next') next: unknown) {
    this.checkCsrf(request, false);
    const form = request.body as Form;
    const email = field(form, 'email', 1000);
    const password = field(form, 'password', 1000);
    const target = safeNext(field(form, 'next', 2000) || next);
    const check = await this.signInLimits.checkPassword(email, password, this.signInClient(request));
    if (check.outcome === 'limited') {
      void reply.header('Retry-After', String(check.retryAfterSeconds));
      return this.render(
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
      return this.render(
        reply,
        'login',
        { form: { email }, errors: { form: 'That email and password do not match an account.' }, next: target },
        401,
      );
    }
    if ((await this.accounts.twoFactorStatus(check.account.id)).enabled) {
      // The password is proved; the session waits for the second factor (one step, 5 minutes).
      const pending = await this.challenges.start('totp', check.account.id, { next: target });
      this.cookies.set(reply, 'challenge', pending);
      return reply.redirect('/login/code', 303);
    }
    await this.finishSignIn(request, reply, check.account.id, check.deviceCookie);
    return reply.redirect(target, 303);
  }

  /** The challenge for "Sign in with a passkey" (any passkey of this site: discoverable credentials). */
  @Post('/login/passkey/options')
  async passkeySignInOptions(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    this.checkCsrf(request, false);
    const options = await this.passkeys.signInOptions();
    const pending = await this.challenges.start('passkey-sign-in', null, { challenge: options.challenge });
    this.cookies.set(reply, 'challenge', pending);
    return reply.status(200).header('Cache-Control', 'no-store').send(options);
  }

  /** Signs in with the browser's passkey answer: no password, no code (the passkey is both). */
  @Post('/login/passkey')
  async passkeySignIn(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Query('next') next: unknown) {
    this.checkCsrf(request, false);
    const form = request.body as Form;
    const target = safeNext(field(form, 'next', 2000) || next);
    const refuse = (message: string, status: number) =>
      this.render(reply, 'login', { form: {}, errors: { form: message }, next: target }, status);
    const wait = await this.signInLimits.checkSignUp(request.ip);
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
      await this.finishSignIn(request, reply, accountId, await this.accounts.deviceCookie(accountId));
      return reply.redirect(target, 303);
    } catch (error) {
      if (!(error instanceof PasskeyError)) throw error;
      return refuse(`That passkey did not sign you in. ${error.message}`, 401);
    }
  }

  /** Single sign-on: off to the provider, with PKCE, state and nonce kept in a sign-in step. */
  @Get('/login/oidc')
  async singleSignOn(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Query('next') next: unknown) {
    if (!this.oidc.name) throw new PageError(404, 'Single sign-on is not set up on this server.');
    try {
      const { url, pending } = await this.oidc.start(safeNext(next));
      const id = await this.challenges.start('oidc', null, pending);
      this.cookies.set(reply, 'challenge', id);
      return reply.redirect(url, 303);
    } catch (error) {
      if (!(error instanceof OidcUnavailableError)) throw error;
      throw new PageError(
        503,
        `${this.oidc.name} cannot be reached right now. Sign in with your password, or try again later.`,
      );
    }
  }

  /** The provider sends the browser back here: one use of the step, then the account by verified email. */
  @Get('/login/oidc/callback')
  async singleSignOnCallback(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    if (!this.oidc.name) throw new PageError(404, 'Single sign-on is not set up on this server.');
    const refuse = (message: string, status: number) =>
      this.render(reply, 'login', { form: {}, errors: { form: message }, next: DEFAULT_NEXT }, status);
    const wait = await this.signInLimits.checkSignUp(request.ip);
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
      if (error instanceof OidcUnavailableError) {
        throw new PageError(503, `${this.oidc.name} cannot be reached right now. Try again later.`);
      }
      if (!(error instanceof OidcRefusedError)) throw error;
      return refuse(`${this.oidc.name} did not sign you in: ${error.message}.`, 401);
    }
    let account = await this.accounts.findByEmail(email);
    if (!account) {
      if (!this.config.signupOpen) {
        return refuse(`There is no account for ${email}, and sign-up is closed on this server.`, 403);
      }
      try {
        account = await this.accounts.create(email);
      } catch (error) {
        if (!(error instanceof RangeError || error instanceof AccountExistsError)) throw error;
        account = await this.accounts.findByEmail(email);
        if (!account) return refuse(`${email} cannot be used for an account here.`, 403);
      }
    }
    await this.finishSignIn(request, reply, account.id, null);
    return reply.redirect(safeNext(pending.data.next), 303);
  }

  @Get('/login/code')
  async secondFactorPage(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const pending = await this.challenges.find(this.cookies.read(request, 'challenge'), 'totp');
    if (!pending) return reply.redirect('/login', 303);
    return this.render(reply, 'login-code', { errors: {} });
  }

  @Post('/login/code')
  async secondFactor(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    this.checkCsrf(request, false);
    const challengeId = this.cookies.read(request, 'challenge');
    const pending = await this.challenges.find<{ next: string }>(challengeId, 'totp');
    const account = pending?.accountId ? await this.accounts.findById(pending.accountId) : null;
    if (!pending || !account) return reply.redirect('/login', 303);
    const code = field(request.body as Form, 'code', 100);
    const check = await this.signInLimits.checkSecondFactor(account, code, this.signInClient(request));
    if (check.outcome === 'limited') {
      void reply.header('Retry-After', String(check.retryAfterSeconds));
      const errors = { code: 'Too many wrong codes. Wait a few minutes and try again.' };
      return this.render(reply, 'login-code', { errors }, 429);
    }
    if (check.outcome === 'wrong') {
      const errors = { code: 'That code is not right, or was used already. Enter the newest code from your app.' };
      return this.render(reply, 'login-code', { errors }, 401);
    }
    // One sign-in per proved password: a second request with the same step finds it used.
    if (!(await this.challenges.consume(challengeId, 'totp'))) return reply.redirect('/login', 303);
    this.cookies.clear(reply, 'challenge');
    await this.finishSignIn(request, reply, account.id, await this.accounts.deviceCookie(account.id));
    return reply.redirect(safeNext(pending.data.next), 303);
  }

  @Post('/logout')
  async logout(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const session = await this.session(request);
    // Without a live session there is nothing to end, and nothing a forged form could do.
    if (session) {
      this.checkCsrf(request, true);
      await this.sessions.end(session.idHash);
    }
    this.cookies.clear(reply, 'session');
    return reply.redirect('/login', 303);
  }

  // ---- links -----------------------------------------------------------------------------

  @Get('/dashboard')
  async dashboard(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Query('page') page: unknown) {
    const session = await this.requireSession(request, reply);
    if (!session) return reply;
    return this.renderDashboard(reply, session, page, { form: {}, errors: {} });
  }

  @Post('/dashboard')
  async createLink(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const session = await this.requireSession(request, reply);
    if (!session) return reply;
    this.checkCsrf(request, true);
    const form = request.body as Form;
    const url = field(form, 'url');
    const customCode = field(form, 'custom_code', 1000).trim();
    const expiresAt = field(form, 'expires_at', 100);
    try {
      const link = await this.links.create(this.caller(session), {
        url,
        custom_code: customCode === '' ? undefined : customCode,
        expires_at: expiryFromForm(expiresAt),
      });
      return reply.redirect(`/dashboard?created=${encodeURIComponent(link.code)}`, 303);
    } catch (error) {
      return this.renderDashboard(
        reply,
        session,
        1,
        { form: { url, custom_code: customCode, expires_at: expiresAt }, errors: this.linkErrors(error) },
        400,
      );
    }
  }

  @Get('/dashboard/links/:code')
  async linkPage(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('code') code: string) {
    const session = await this.requireSession(request, reply);
    if (!session) return reply;
    const link = await this.links.get(this.caller(session), code);
    return this.renderLink(reply, session, link, {
      form: { url: link.url, expires_at: expiryForForm(link.expires_at) },
      errors: {},
    });
  }

  /** The link's QR code as an SVG file to download (the link page shows it inline). */
  @Get('/dashboard/links/:code/qr.svg')
  async linkQrCode(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('code') code: string) {
    const session = await this.requireSession(request, reply);
    if (!session) return reply;
    const svg = await this.links.qrCode(this.caller(session), code);
    return reply
      .header('Content-Type', 'image/svg+xml; charset=utf-8')
      .header('Content-Disposition', `attachment; filename="${code}-qr.svg"`)
      .send(svg);
  }

  @Post('/dashboard/links/:code')
  async editLink(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('code') code: string) {
    const session = await this.requireSession(request, reply);
    if (!session) return reply;
    this.checkCsrf(request, true);
    const form = request.body as Form;
    const url = field(form, 'url');
    const expiresAt = field(form, 'expires_at', 100);
    const caller = this.caller(session);
    try {
      const current = await this.links.get(caller, code);
      await this.links.update(caller, code, { url, expires_at: expiryFromForm(expiresAt, current.expires_at) });
      return reply.redirect(`/dashboard/links/${encodeURIComponent(code)}?saved=1`, 303);
    } catch (error) {
      if (error instanceof ApiError && error.errorName === 'not_found') throw error;
      const link = await this.links.get(caller, code);
      return this.renderLink(
        reply,
        session,
        link,
        { form: { url, expires_at: expiresAt }, errors: this.linkErrors(error) },
        400,
      );
    }
  }

  @Post('/dashboard/links/:code/delete')
  async deleteLink(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('code') code: string) {
    const session = await this.requireSession(request, reply);
    if (!session) return reply;
    this.checkCsrf(request, true);
    try {
      await this.links.remove(this.caller(session), code);
    } catch (error) {
      // A second submit of the same delete finds nothing: the outcome the person wanted.
      if (!(error instanceof ApiError && error.errorName === 'not_found')) throw error;
    }
    return reply.redirect('/dashboard?deleted=1', 303);
  }

  // ---- tokens ----------------------------------------------------------------------------

  @Get('/dashboard/tokens')
  async tokensPage(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const session = await this.requireSession(request, reply);
    if (!session) return reply;
    return this.renderTokens(reply, session, { form: { scopes: [...SCOPES] }, errors: {} });
  }

  @Post('/dashboard/tokens')
  async createToken(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const session = await this.requireSession(request, reply);
    if (!session) return reply;
    this.checkCsrf(request, true);
    const form = request.body as Form;
    const name = field(form, 'name').trim();
    const requested = fieldList(form, 'scopes');
    const scopes = requested.filter((scope): scope is Scope => isScope(scope));
    const errors: Errors = {};
    if (name === '') errors.name = 'Give the token a name, e.g. the script or app that will use it.';
    else if (name.length > TOKEN_NAME_MAX_LENGTH) errors.name = `Use at most ${TOKEN_NAME_MAX_LENGTH} characters.`;
    if (scopes.length === 0 || scopes.length !== requested.length) errors.scopes = 'Choose at least one scope.';
    if (Object.keys(errors).length > 0) {
      return this.renderTokens(reply, session, { form: { name, scopes }, errors }, 400);
    }
    const { token } = await this.tokens.create(session.accountId, name, scopes);
    // Shown on this response only: a reload or the list never shows it again.
    void reply.header('Cache-Control', 'no-store');
    return this.renderTokens(reply, session, { form: { scopes: [...SCOPES] }, errors: {}, newToken: token }, 201);
  }

  @Post('/dashboard/tokens/:id/revoke')
  async revokeToken(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('id') id: string) {
    const session = await this.requireSession(request, reply);
    if (!session) return reply;
    this.checkCsrf(request, true);
    const own = await this.tokens.listForAccount(session.accountId);
    if (!own.some((token) => token.id === id)) throw new PageError(404, 'No such token');
    await this.tokens.revoke(id);
    return reply.redirect('/dashboard/tokens?revoked=1', 303);
  }

  // ---- account ---------------------------------------------------------------------------

  @Get('/account')
  async accountPage(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const session = await this.requireSession(request, reply);
    if (!session) return reply;
    return this.renderAccount(reply, session, { errors: {} });
  }

  @Post('/account/password')
  async changePassword(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const session = await this.requireSession(request, reply);
    if (!session) return reply;
    this.checkCsrf(request, true);
    const form = request.body as Form;
    const account = await this.accounts.findById(session.accountId);
    if (!account) throw new PageError(404, 'No such account');
    // The same limits as signing in: a session left open must not be a way to guess the password.
    const check = await this.signInLimits.checkPassword(
      account.email,
      field(form, 'current_password', 1000),
      this.signInClient(request),
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
    this.keepDevice(reply, await this.accounts.deviceCookie(session.accountId));
    return reply.redirect('/account?password=changed', 303);
  }

  /** Turns two-factor sign-in on: the code proves the app holds the secret the page showed. */
  @Post('/account/two-factor')
  async enableTwoFactor(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const session = await this.requireSession(request, reply);
    if (!session) return reply;
    this.checkCsrf(request, true);
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
  async disableTwoFactor(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const session = await this.requireSession(request, reply);
    if (!session) return reply;
    this.checkCsrf(request, true);
    const form = request.body as Form;
    const account = await this.accounts.findById(session.accountId);
    if (!account) throw new PageError(404, 'No such account');
    const client = this.signInClient(request);
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
  async passkeyRegistrationOptions(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const session = await this.requireSession(request, reply);
    if (!session) return reply;
    this.checkCsrf(request, true);
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
  async addPasskey(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const session = await this.requireSession(request, reply);
    if (!session) return reply;
    this.checkCsrf(request, true);
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
  async removePasskey(@Req() request: FastifyRequest, @Res() reply: FastifyReply, @Param('id') id: string) {
    const session = await this.requireSession(request, reply);
    if (!session) return reply;
    this.checkCsrf(request, true);
    if (!(await this.passkeys.remove(session.accountId, id))) throw new PageError(404, 'No such passkey');
    return reply.redirect('/account?passkey=removed', 303);
  }

  @Post('/account/sessions/delete')
  async signOutEverywhere(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const session = await this.requireSession(request, reply);
    if (!session) return reply;
    this.checkCsrf(request, true);
    await this.sessions.endAll(session.accountId);
    this.cookies.clear(reply, 'session');
    return reply.redirect('/login', 303);
  }

  @Post('/account/delete')
  async deleteAccount(@Req() request: FastifyRequest, @Res() reply: FastifyReply) {
    const session = await this.requireSession(request, reply);
    if (!session) return reply;
    this.checkCsrf(request, true);
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
    await this.links.deleteAccountWithLinks(account.id, () => this.accounts.delete(account.id));
    this.cookies.clear(reply, 'session');
    return reply.redirect('/?deleted=1', 303);
  }

  // ---- helpers ---------------------------------------------------------------------------

  private caller(session: ActiveSession) {
    return { accountId: session.accountId, tokenId: '', scopes: [...SCOPES] };
  }

  private session(request: FastifyRequest): Promise<ActiveSession | null> {
    return this.sessions.resolve(this.cookies.read(request, 'session'));
  }

  /** The session, or null after answering 303 to the sign-in page (which brings the person back). */
  private async requireSession(request: FastifyRequest, reply: FastifyReply): Promise<ActiveSession | null> {
    const session = await this.session(request);
    if (!session) {
      const back = request.method === 'GET' ? request.url : (request.routeOptions.url ?? '/dashboard');
      void reply.redirect(`/login?next=${encodeURIComponent(safeNext(back))}`, 303);
    }
    return session;
  }

  /** Every way in ends here: the old session (if any) ends, a new one starts, the device is kept. */
  private async finishSignIn(
    request: FastifyRequest,
    reply: FastifyReply,
    accountId: string,
    deviceCookie: string | null,
  ): Promise<void> {
    const previous = await this.session(request);
    if (previous) await this.sessions.end(previous.idHash);
    await this.signIn(reply, accountId);
    this.keepDevice(reply, deviceCookie);
  }

  private async signIn(reply: FastifyReply, accountId: string): Promise<void> {
    const id = await this.sessions.start(accountId);
    this.cookies.set(reply, 'session', id, Math.floor(this.sessions.ttlMs / 1000));
  }

  private keepDevice(reply: FastifyReply, deviceCookie: string | null): void {
    if (deviceCookie) this.cookies.set(reply, 'device', deviceCookie, DEVICE_COOKIE_MAX_AGE_SECONDS);
  }

  private signInClient(request: FastifyRequest) {
    return { ip: request.ip, deviceCookie: this.cookies.read(request, 'device') };
  }

  /** `signedIn`: the form was shown to a live session (its token is bound to it), else signed out. */
  private checkCsrf(request: FastifyRequest, signedIn: boolean): void {
    if (!this.csrf.valid(request, signedIn)) {
      throw new PageError(
        403,
        'This form has expired or did not come from this site. Go back, reload the page and try again.',
      );
    }
  }

  /** The API's errors about a link, as messages next to the form's fields. */
  private linkErrors(error: unknown): Errors {
    if (!(error instanceof ApiError)) throw error;
    if (error.errorName === 'invalid_url') return { url: `${error.detail}.`.replace(/^url /, 'The URL ') };
    if (error.errorName === 'invalid_code') {
      return { custom_code: error.detail.replace(/^custom_code /, 'The custom code ') + '.' };
    }
    if (error.errorName === 'code_taken') return { custom_code: `${error.detail}. Choose another one.` };
    if (error.errorName === 'validation_failed' && error.fieldErrors?.some((e) => e.field === 'expires_at')) {
      return { expires_at: `${error.detail.replace(/^expires_at /, 'The expiry ')}.` };
    }
    throw error;
  }

  private async renderDashboard(
    reply: FastifyReply,
    session: ActiveSession,
    page: unknown,
    data: { form: Form; errors: Errors },
    status = 200,
  ) {
    const request = reply.request;
    const pageNumber = typeof page === 'string' && /^\d{1,6}$/.test(page) ? Math.max(1, Number(page)) : 1;
    const query = request.query as Record<string, unknown>;
    // The search box: the API's `q` rules; anything else is said next to the box, not searched.
    const q = typeof query.q === 'string' ? query.q.trim() : '';
    const searchError =
      q.length > MAX_SEARCH_LENGTH ? `Search for at most ${MAX_SEARCH_LENGTH} characters.` : undefined;
    const search = q !== '' && !searchError ? q : undefined;
    const list = await this.links.list(this.caller(session), {
      limit: PAGE_SIZE,
      offset: (pageNumber - 1) * PAGE_SIZE,
      q: search,
    });
    return this.render(
      reply,
      'dashboard',
      {
        ...data,
        session,
        list,
        page: pageNumber,
        pages: Math.max(1, Math.ceil(list.total / PAGE_SIZE)),
        q,
        search,
        searchError,
        pageQuery: search ? `&q=${encodeURIComponent(search)}` : '',
        now: Date.now(),
        created: typeof query.created === 'string' ? query.created : undefined,
        deleted: query.deleted === '1',
      },
      status,
    );
  }

  private async renderLink(
    reply: FastifyReply,
    session: ActiveSession,
    link: LinkDto,
    data: { form: Form; errors: Errors },
    status = 200,
  ) {
    const clicks = await this.clicks.linkClicks(session.accountId, link.code, DEFAULT_CLICK_DAYS);
    const query = reply.request.query as Record<string, unknown>;
    return this.render(
      reply,
      'link',
      {
        ...data,
        session,
        link,
        clicks,
        chart: clickChart(clicks.days),
        qr: await qrCodeSvg(link.short_url),
        expired: link.expires_at !== null && Date.parse(link.expires_at) <= Date.now(),
        saved: query.saved === '1',
      },
      status,
    );
  }

  private async renderTokens(reply: FastifyReply, session: ActiveSession, data: object, status = 200) {
    const tokens = await this.tokens.listForAccount(session.accountId);
    const query = reply.request.query as Record<string, unknown>;
    return this.render(reply, 'tokens', { ...data, session, tokens, revoked: query.revoked === '1' }, status);
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
    return this.render(
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

  /** Pages whose data carry a `session` are signed-in pages: their forms' tokens are bound to it. */
  private async render(
    reply: FastifyReply,
    page: string,
    data: { session?: ActiveSession | null; [key: string]: unknown },
    status = 200,
  ) {
    const html = await reply.viewAsync(`${page}.eta`, {
      ...data,
      csrfToken: this.csrf.issue(reply.request, reply, Boolean(data.session)),
      oidcName: this.oidc.name,
      shortBaseUrl: this.config.shortBaseUrl,
    });
    return reply
      .status(status)
      .header('Content-Type', 'text/html; charset=utf-8')
      .header('Cache-Control', 'no-store')
      .send(html);
  }
}
