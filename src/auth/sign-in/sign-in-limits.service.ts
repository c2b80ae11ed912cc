import { Injectable } from '@nestjs/common';
import { InjectThrottlerStorage, type ThrottlerStorage } from '@nestjs/throttler';
import { AccountsService, type AccountView } from '../../accounts/accounts.service.js';
import { normalizeEmail } from '../../accounts/email-address.js';
import { ServiceCounters } from '../../metrics/service-counters.js';
import { RateLimitStorage } from '../../rate-limit/rate-limit.storage.js';

/** Attempts per counter and window (the contract's "10 per 15 minutes"). */
export const SIGN_IN_LIMIT = 10;
export const SIGN_IN_WINDOW_MS = 15 * 60 * 1000;

/** Who is trying: the client's address and the device cookie its browser sent, if any. */
export interface SignInClient {
  ip: string;
  deviceCookie: string | undefined;
}

export type PasswordCheck =
  | { outcome: 'right'; account: AccountView; deviceCookie: string | null }
  | { outcome: 'wrong' }
  | { outcome: 'limited'; retryAfterSeconds: number };

/**
 * Every check of an account's password (signing in, and the current password before a change)
 * and every sign-up goes through these limits, shared by all instances through the rate-limit
 * storage (Redis when REDIS_URL is set):
 *
 * - per client IP: every attempt counts, sign-ups included (a refused sign-up tells whether an
 *   email is registered, so it may not be cheaper than a sign-in attempt);
 * - per account: only wrong passwords count, on one counter for browsers that never signed in to
 *   the account and one per browser that did (its device cookie). Guesses from anywhere else
 *   lock out only "anywhere else"; the owner's browser keeps its own counter (OWASP's device
 *   cookies).
 */
@Injectable()
export class SignInLimits {
  private readonly storage: RateLimitStorage;

  constructor(
    private readonly accounts: AccountsService,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    private readonly counters: ServiceCounters,
  ) {
    if (!(storage instanceof RateLimitStorage)) throw new Error('SignInLimits needs the RateLimitStorage');
    this.storage = storage;
  }

  async checkPassword(email: string, password: string, client: SignInClient): Promise<PasswordCheck> {
    const byIp = await this.countAttempt(client.ip);
    if (byIp.isBlocked) return this.limited(byIp.timeToBlockExpire);
    const accountKey = await this.accountKey(email, client);
    const byAccount = await this.storage.peek(accountKey, SIGN_IN_LIMIT);
    if (byAccount.isBlocked) return this.limited(byAccount.timeToBlockExpire);
    const account = await this.accounts.verifyCredentials(email, password);
    if (!account) {
      await this.storage.increment(accountKey, SIGN_IN_WINDOW_MS, SIGN_IN_LIMIT);
      return { outcome: 'wrong' };
    }
    return { outcome: 'right', account, deviceCookie: await this.accounts.deviceCookie(account.id) };
  }

  /**
   * Checks a second factor (a TOTP or recovery code) of an account whose password was proved, on
   * the same counters as its password: a wrong code counts like a wrong password.
   */
  async checkSecondFactor(
    account: { id: string; email: string },
    code: string,
    client: SignInClient,
  ): Promise<Exclude<PasswordCheck, { outcome: 'right' }> | { outcome: 'right' }> {
    const byIp = await this.countAttempt(client.ip);
    if (byIp.isBlocked) return this.limited(byIp.timeToBlockExpire);
    const accountKey = await this.accountKey(account.email, client);
    const byAccount = await this.storage.peek(accountKey, SIGN_IN_LIMIT);
    if (byAccount.isBlocked) return this.limited(byAccount.timeToBlockExpire);
    if (await this.accounts.verifySecondFactor(account.id, code)) return { outcome: 'right' };
    await this.storage.increment(accountKey, SIGN_IN_WINDOW_MS, SIGN_IN_LIMIT);
    return { outcome: 'wrong' };
  }

  /**
   * Counts an attempt that has no account to count against yet (a sign-up, a passkey, a return
   * from the OIDC provider) on the client address: the seconds to wait when over the limit, else null.
   */
  async countClientAttempt(ip: string): Promise<number | null> {
    const byIp = await this.countAttempt(ip);
    if (!byIp.isBlocked) return null;
    this.counters.refusedSignIn++;
    return byIp.timeToBlockExpire;
  }

  /** The per-account counter this client's attempts go to: its own device's, or "everyone else". */
  private async accountKey(email: string, client: SignInClient): Promise<string> {
    const device = await this.accounts.trustedDevice(email, client.deviceCookie);
    // The stored form: the same address typed in another Unicode form or case is the same counter.
    return device ? `signin-device:${device}` : `signin-email:${normalizeEmail(email)}`;
  }

  private limited(retryAfterSeconds: number): { outcome: 'limited'; retryAfterSeconds: number } {
    this.counters.refusedSignIn++;
    return { outcome: 'limited', retryAfterSeconds };
  }

  private countAttempt(ip: string) {
    return this.storage.increment(`signin-ip:${ip}`, SIGN_IN_WINDOW_MS, SIGN_IN_LIMIT);
  }
}
