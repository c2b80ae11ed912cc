import { Inject, Injectable } from '@nestjs/common';
import { AccountsService, type AccountView } from '../../accounts/accounts.service.js';
import { checkEmail, printableEmail } from '../../accounts/email-address.js';
import { ApiError } from '../../common/errors/api-error.js';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/config.tokens.js';
import { safeNext } from '../../pages/safe-next.js';
import { EmailVerification } from '../email-links/email-verification.service.js';
import type { ActiveSession } from '../sessions/sessions.service.js';
import { OidcService, type OidcPending } from './oidc.service.js';
import { PasskeysService } from './passkeys.service.js';
import { SignInChallenges } from './sign-in-challenges.service.js';
import { SignInLimits, type SignInClient } from './sign-in-limits.service.js';
import { SudoMode } from './sudo-mode.service.js';

/** A way in proved: the caller starts the session (and keeps the device cookie) and goes to `next`. */
export interface SignedIn {
  outcome: 'signed-in';
  accountId: string;
  deviceCookie: string | null;
  next: string;
}

/** Too many attempts: the caller says so with Retry-After. */
export interface Limited {
  outcome: 'limited';
  retryAfterSeconds: number;
}

/** Refused, with what to tell the person and the status to answer with. */
export interface Refused {
  outcome: 'refused';
  message: string;
  status: number;
}

export type SignUpResult = SignedIn | Limited | { outcome: 'closed' } | { outcome: 'invalid'; error: unknown };

export type PasswordStepResult =
  | SignedIn
  | Limited
  | { outcome: 'wrong' }
  | { outcome: 'disabled' }
  /** The password is proved; the code is asked next, on the step `challengeId`. */
  | { outcome: 'second-factor'; challengeId: string };

export type SecondFactorResult = SignedIn | Limited | { outcome: 'wrong' } | { outcome: 'no-step' };

export type DisableTwoFactorResult = { outcome: 'done' } | { outcome: 'stale' } | { outcome: 'wrong' } | Limited;

export type ChangePasswordResult =
  | { outcome: 'done'; deviceCookie: string | null }
  | { outcome: 'wrong' }
  | { outcome: 'invalid'; error: unknown }
  | Limited;

/** A change that needs sudo mode, asked of a session that has not proved a factor lately. */
export interface Stale {
  outcome: 'stale';
}

/**
 * The rules of every way into an account, in order: sign-up, password then (when the account has
 * one) a TOTP code, a passkey, single sign-on (with the account it finds or makes), and turning
 * two-factor sign-in off. It owns the single-use steps between two requests (SignInChallenges)
 * and counts every attempt against the limits (SignInLimits). It answers with outcomes; the
 * controllers turn them into sessions, cookies, pages and redirects.
 */
@Injectable()
export class SignInFlow {
  constructor(
    private readonly accounts: AccountsService,
    private readonly limits: SignInLimits,
    private readonly challenges: SignInChallenges,
    private readonly passkeys: PasskeysService,
    private readonly oidc: OidcService,
    private readonly verification: EmailVerification,
    private readonly sudo: SudoMode,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Whether people may create accounts here (SIGNUP `open` or `verify`). */
  get signupOpen(): boolean {
    return this.config.signup !== 'closed';
  }

  /** A new account with a password; under SIGNUP=verify its email link goes out (in the background). */
  async signUp(email: string, password: string, ip: string): Promise<SignUpResult> {
    if (!this.signupOpen) return { outcome: 'closed' };
    const wait = await this.limits.countClientAttempt(ip);
    if (wait !== null) return { outcome: 'limited', retryAfterSeconds: wait };
    let account: AccountView;
    try {
      account = await this.accounts.register(email, password, { verifyEmail: this.verification.required });
    } catch (error) {
      return { outcome: 'invalid', error };
    }
    if (this.verification.required) await this.verification.sendLink(account.id);
    return this.signedIn(account.id, undefined);
  }

  /** The password step: signed in, or a second factor to ask for, or why not. */
  async passwordStep(email: string, password: string, client: SignInClient, next: string): Promise<PasswordStepResult> {
    const check = await this.limits.checkPassword(email, password, client);
    if (check.outcome !== 'right') return check;
    // Said only to whoever proved the password: to anyone else it is a wrong password.
    if (check.account.disabled_at !== null) return { outcome: 'disabled' };
    if ((await this.accounts.twoFactorStatus(check.account.id)).enabled) {
      // The session waits for the second factor (one step, 5 minutes).
      const challengeId = await this.challenges.start('totp', check.account.id, { next });
      return { outcome: 'second-factor', challengeId };
    }
    return { outcome: 'signed-in', accountId: check.account.id, deviceCookie: check.deviceCookie, next };
  }

  /** Whether `challengeId` is a live second-factor step (the code page is shown only then). */
  async secondFactorPending(challengeId: string | undefined): Promise<boolean> {
    return (await this.challenges.find(challengeId, 'totp')) !== null;
  }

  /** The code step: used once, and counted like the password. */
  async secondFactorStep(
    challengeId: string | undefined,
    code: string,
    client: SignInClient,
  ): Promise<SecondFactorResult> {
    const pending = await this.challenges.find<{ next: string }>(challengeId, 'totp');
    const account = pending?.accountId ? await this.accounts.findById(pending.accountId) : null;
    if (!pending || !account) return { outcome: 'no-step' };
    const check = await this.limits.checkSecondFactor(account, code, client);
    if (check.outcome !== 'right') return check;
    // One sign-in per proved password: a second request with the same step finds it used.
    if (!(await this.challenges.consume(challengeId, 'totp'))) return { outcome: 'no-step' };
    return this.signedIn(account.id, pending.data.next);
  }

  /** "Sign in with a passkey": the browser's options, and the step that keeps their challenge. */
  async passkeyOptions(): Promise<{ options: object; challengeId: string }> {
    const options = await this.passkeys.signInOptions();
    const challengeId = await this.challenges.start('passkey-sign-in', null, { challenge: options.challenge });
    return { options, challengeId };
  }

  /** The browser's passkey answer: no password, no code (the passkey is both). */
  async passkeyStep(
    challengeId: string | undefined,
    response: unknown,
    ip: string,
    next: string,
  ): Promise<SignedIn | Limited | Refused> {
    const wait = await this.limits.countClientAttempt(ip);
    if (wait !== null) return { outcome: 'limited', retryAfterSeconds: wait };
    const pending = await this.challenges.consume<{ challenge: string }>(challengeId, 'passkey-sign-in');
    if (!pending) return refused('That passkey sign-in has expired. Try again.', 400);
    try {
      const accountId = await this.passkeys.signIn(response, pending.data.challenge);
      return await this.signedIn(accountId, next);
    } catch (error) {
      if (!(error instanceof ApiError && error.errorName === 'passkey_refused')) throw error;
      return refused(`That passkey did not sign you in. ${error.detail}`, error.getStatus());
    }
  }

  /** Off to the provider, with PKCE, state and nonce kept in a single-use step. */
  async singleSignOnStart(next: string): Promise<{ url: string; challengeId: string }> {
    // Not set up (404) or the provider down (503) are thrown: the error page says so.
    const { url, pending } = await this.oidc.start(next);
    return { url, challengeId: await this.challenges.start('oidc', null, pending) };
  }

  /**
   * Back from the provider (`query`: the callback's query string, with its `?`): one use of the
   * step, then the account with the provider's verified email, made when there is none and
   * sign-up is open.
   */
  async singleSignOnFinish(
    challengeId: string | undefined,
    query: string,
    ip: string,
  ): Promise<SignedIn | Limited | Refused> {
    this.oidc.assertSetUp();
    const wait = await this.limits.countClientAttempt(ip);
    if (wait !== null) return { outcome: 'limited', retryAfterSeconds: wait };
    const pending = await this.challenges.consume<OidcPending>(challengeId, 'oidc');
    if (!pending)
      return refused(`That sign-in with ${this.oidc.name} has expired, or was used already. Try again.`, 400);
    let email: string;
    try {
      email = await this.oidc.finish(query, pending.data);
    } catch (error) {
      // The provider down (503 `sso_unavailable`) is thrown on; a refusal is said to the person.
      if (!(error instanceof ApiError && error.errorName === 'unauthorized')) throw error;
      return refused(`${this.oidc.name} did not sign you in: ${error.detail}.`, error.getStatus());
    }
    const account = await this.singleSignOnAccount(email);
    if (account.outcome === 'refused') return account;
    return { outcome: 'signed-in', accountId: account.id, deviceCookie: null, next: safeNext(pending.data.next) };
  }

  /**
   * Turns two-factor sign-in off: the password and a code, both counted like a sign-in. An
   * account without a password (single sign-on, passkeys) shows a fresh sign-in instead.
   */
  async disableTwoFactor(
    session: ActiveSession,
    password: string,
    code: string,
    client: SignInClient,
  ): Promise<DisableTwoFactorResult> {
    const account = await this.accounts.get(session.accountId);
    const hasPassword = await this.accounts.hasPassword(account.id);
    if (!hasPassword && !(await this.sudo.isFresh(session))) return { outcome: 'stale' };
    const passwordCheck = hasPassword
      ? await this.limits.checkPassword(account.email, password, client)
      : ({ outcome: 'right' } as const);
    const check =
      passwordCheck.outcome === 'right' ? await this.limits.checkSecondFactor(account, code, client) : passwordCheck;
    if (check.outcome !== 'right') return check;
    await this.accounts.disableTotp(account.id);
    return { outcome: 'done' };
  }

  /**
   * A new password, from a signed-in session: the current one is asked, with the same limits as
   * signing in (a session left open must not be a way to guess it). The account's other sessions
   * end; the new device cookie is for this browser, which just proved the password.
   */
  async changePassword(
    session: ActiveSession,
    currentPassword: string,
    newPassword: string,
    client: SignInClient,
  ): Promise<ChangePasswordResult> {
    const account = await this.accounts.get(session.accountId);
    const check = await this.limits.checkPassword(account.email, currentPassword, client);
    if (check.outcome !== 'right') return check;
    try {
      await this.accounts.setPassword(account.id, newPassword, session.idHash);
    } catch (error) {
      return { outcome: 'invalid', error };
    }
    return { outcome: 'done', deviceCookie: await this.accounts.deviceCookie(account.id) };
  }

  /** Turns TOTP on (sudo mode): the recovery codes, or null when the code does not prove the secret. */
  async enableTwoFactor(
    session: ActiveSession,
    secret: string,
    code: string,
  ): Promise<Stale | { outcome: 'done'; recoveryCodes: string[] | null }> {
    if (!(await this.sudo.isFresh(session))) return { outcome: 'stale' };
    return { outcome: 'done', recoveryCodes: await this.accounts.enableTotp(session.accountId, secret, code) };
  }

  /** "Add a passkey" (sudo mode): the browser's options, and the step bound to this session. */
  async passkeyRegistrationStart(
    session: ActiveSession,
  ): Promise<Stale | Refused | { outcome: 'options'; options: object; challengeId: string }> {
    if (!(await this.sudo.isFresh(session))) return { outcome: 'stale' };
    const account = await this.accounts.get(session.accountId);
    try {
      const options = await this.passkeys.registrationOptions(account);
      // Bound to this session, which was fresh when it began (the ceremony may end a little later).
      const challengeId = await this.challenges.start('passkey-register', account.id, {
        challenge: options.challenge,
        session: session.idHash,
      });
      return { outcome: 'options', options, challengeId };
    } catch (error) {
      if (!(error instanceof ApiError && error.errorName === 'passkey_refused')) throw error;
      return refused(error.detail, error.getStatus());
    }
  }

  /** The browser's answer to "Add a passkey", on the step this session started. */
  async passkeyRegistrationFinish(
    session: ActiveSession,
    challengeId: string | undefined,
    name: string,
    response: unknown,
  ): Promise<Stale | Refused | { outcome: 'done' }> {
    const pending = await this.challenges.consume<{ challenge: string; session?: string }>(
      challengeId,
      'passkey-register',
    );
    if (!pending || pending.accountId !== session.accountId || pending.data.session !== session.idHash) {
      if (!(await this.sudo.isFresh(session))) return { outcome: 'stale' };
      return refused('Adding a passkey needs JavaScript, and must be finished within 5 minutes. Try again.', 400);
    }
    try {
      await this.passkeys.register(session.accountId, name, response, pending.data.challenge);
    } catch (error) {
      if (!(error instanceof ApiError && error.errorName === 'passkey_refused')) throw error;
      return refused(error.detail, 400);
    }
    return { outcome: 'done' };
  }

  /** Removes a passkey (sudo mode); 404 for one the account does not have. */
  async removePasskey(session: ActiveSession, id: string): Promise<Stale | { outcome: 'done' }> {
    if (!(await this.sudo.isFresh(session))) return { outcome: 'stale' };
    await this.passkeys.remove(session.accountId, id);
    return { outcome: 'done' };
  }

  /**
   * The account of the provider's address. The address follows the rule of every address here:
   * a NUL, an invisible character or 300 characters make no account (nor a 500 from the database).
   */
  private async singleSignOnAccount(email: string): Promise<{ outcome: 'found'; id: string } | Refused> {
    const checked = checkEmail(email);
    if (!checked.ok) {
      return refused(
        `${this.oidc.name} gave the address ${printableEmail(email)}, which cannot be used for an account here. ${checked.problem}`,
        403,
      );
    }
    const existing = await this.accounts.findByEmail(checked.email);
    if (existing) return { outcome: 'found', id: existing.id };
    if (!this.signupOpen)
      return refused(`There is no account for ${checked.email}, and sign-up is closed on this server.`, 403);
    try {
      return { outcome: 'found', id: (await this.accounts.create(checked.email)).id };
    } catch (error) {
      // Not an address this service takes, or made a moment ago by another sign-in.
      if (!(error instanceof ApiError)) throw error;
      const made = await this.accounts.findByEmail(checked.email);
      return made
        ? { outcome: 'found', id: made.id }
        : refused(`${checked.email} cannot be used for an account here.`, 403);
    }
  }

  private async signedIn(accountId: string, next: string | undefined): Promise<SignedIn> {
    return {
      outcome: 'signed-in',
      accountId,
      deviceCookie: await this.accounts.deviceCookie(accountId),
      next: safeNext(next),
    };
  }
}

function refused(message: string, status: number): Refused {
  return { outcome: 'refused', message, status };
}
