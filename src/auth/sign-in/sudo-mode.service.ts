import { Injectable } from '@nestjs/common';
import { AccountsService } from '../../accounts/accounts.service.js';
import { SessionsService, type ActiveSession } from '../sessions/sessions.service.js';
import { SignInLimits, type SignInClient } from './sign-in-limits.service.js';

/**
 * How long after a session proved a sign-in factor it may change the account's ways in (GitHub's
 * "sudo mode" lasts longer; 5 minutes is enough to set up an app or a passkey).
 */
export const SUDO_WINDOW_MS = 5 * 60 * 1000;

/**
 * Whether a session may change how the account signs in right now, and if not, what confirming
 * takes: the password (and a code when two-factor sign-in is on), or, for an account without a
 * password (single sign-on, passkeys), signing in again.
 */
export type SudoState = { fresh: true } | { fresh: false; confirmWith: 'password' | 'password-and-code' | 'sign-in' };

export type SudoConfirmation =
  | { outcome: 'confirmed' }
  | { outcome: 'wrong' }
  | { outcome: 'limited'; retryAfterSeconds: number }
  /** No password to confirm with: only a new sign-in proves this account. */
  | { outcome: 'sign-in-again' };

/**
 * Sudo mode: a session cookie alone (stolen from a shared computer, a synced profile, malware)
 * must not add a way in that outlives it: turning two-factor sign-in on, adding or removing a
 * passkey, creating an API token. Those need a session that proved a factor within the last
 * 5 minutes: it signed in then, or its owner confirmed the password (and code) since. Changing
 * the password and turning two-factor sign-in off ask for the password themselves.
 *
 * What it is not: it does not stop someone who has the password, or a session stolen within
 * 5 minutes of its sign-in; and it does not reach the API, whose tokens are their own proof.
 * (When email is set up, a change of a factor should also be told to the owner by email: that
 * belongs here, where every such change is allowed.)
 */
@Injectable()
export class SudoMode {
  constructor(
    private readonly sessions: SessionsService,
    private readonly accounts: AccountsService,
    private readonly signInLimits: SignInLimits,
  ) {}

  async isFresh(session: ActiveSession): Promise<boolean> {
    const at = await this.sessions.authenticatedAt(session.idHash);
    return at !== null && Date.now() - at.getTime() <= SUDO_WINDOW_MS;
  }

  async state(session: ActiveSession): Promise<SudoState> {
    if (await this.isFresh(session)) return { fresh: true };
    return { fresh: false, confirmWith: await this.confirmWith(session.accountId) };
  }

  /**
   * Confirms the session with the account's password, and its code when two-factor sign-in is
   * on; each counted like a sign-in (a stolen session must not be a way to guess the password).
   * On success the session is fresh for another 5 minutes.
   */
  async confirm(
    session: ActiveSession,
    password: string,
    code: string,
    client: SignInClient,
  ): Promise<SudoConfirmation> {
    const confirmWith = await this.confirmWith(session.accountId);
    if (confirmWith === 'sign-in') return { outcome: 'sign-in-again' };
    const account = await this.accounts.get(session.accountId);
    const byPassword = await this.signInLimits.checkPassword(account.email, password, client);
    if (byPassword.outcome !== 'right') return byPassword;
    if (byPassword.account.id !== session.accountId) return { outcome: 'wrong' };
    if (confirmWith === 'password-and-code') {
      const byCode = await this.signInLimits.checkSecondFactor(account, code, client);
      if (byCode.outcome !== 'right') return byCode;
    }
    await this.sessions.recordAuthentication(session.idHash);
    return { outcome: 'confirmed' };
  }

  private async confirmWith(accountId: string): Promise<'password' | 'password-and-code' | 'sign-in'> {
    if (!(await this.accounts.hasPassword(accountId))) return 'sign-in';
    return (await this.accounts.twoFactorStatus(accountId)).enabled ? 'password-and-code' : 'password';
  }
}
