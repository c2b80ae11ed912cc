import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error.js';
import { SessionsService } from '../auth/sessions/sessions.service.js';
import { LinksService } from '../links/links.service.js';
import { LinkModeration } from '../links/moderation/link-moderation.service.js';
import { AccountsRepository, type AccountRecord } from './accounts.repository.js';
import { issueDeviceCookie, verifyDeviceCookie } from './device-cookies.js';
import {
  acceptedTotpStep,
  hashRecoveryCode,
  isTotpSecret,
  looksLikeRecoveryCode,
  newRecoveryCodes,
} from './two-factor.js';
import { decoyHash, hashPassword, passwordProblem, verifyPassword } from './passwords.js';
import { checkEmail, emailLookupKey, emailRuleBreaks, printableEmail } from './email-address.js';
import { SignInChangeNotices } from './sign-in-change-notices.js';

export interface AccountView {
  id: string;
  email: string;
  created_at: string;
  /** An admin of the instance. */
  is_admin: boolean;
  /** When an admin disabled the account; null while it is enabled. */
  disabled_at: string | null;
}

/** An account as the instance's admins see it. */
export interface AdminAccountView extends AccountView {
  disabled_reason: string | null;
  links: number;
}

function toAccountView(account: AccountRecord): AccountView {
  return {
    id: account.id,
    email: account.email,
    created_at: account.createdAt.toISOString(),
    is_admin: account.isAdmin,
    disabled_at: account.disabledAt?.toISOString() ?? null,
  };
}

function toAdminAccountView(account: AccountRecord): AdminAccountView {
  return { ...toAccountView(account), disabled_reason: account.disabledReason, links: account.linkCount };
}

/** The account an id or an e-mail address names does not exist (said as the caller named it). */
function noSuchAccount(email?: string): ApiError {
  return ApiError.notFound(email === undefined ? 'No such account' : `No account for ${printableEmail(email)}`);
}

/** The address under the email rule (email-address.ts), or a 400 saying what is wrong with it. */
function acceptedEmail(input: string): string {
  const check = checkEmail(input);
  if (check.ok) return check.email;
  // The input as typed may hold a NUL or an invisible character: shown escaped, never as it is.
  throw ApiError.validationFailed(`Not an e-mail address: ${printableEmail(input)}`, [
    { field: 'email', message: check.problem },
  ]);
}

/** An account whose stored address breaks the email rule (made before it): what the check reports. */
export interface EmailRuleBreak {
  id: string;
  /** The stored address, made printable (invisible characters as U+XXXX). */
  email: string;
  breaks: string[];
}

/** A new password refused: why, for the person choosing it. */
function weakPassword(problem: string): ApiError {
  return ApiError.validationFailed(problem, [{ field: 'password', message: problem }]);
}

@Injectable()
export class AccountsService {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly sessions: SessionsService,
    private readonly links: LinksService,
    private readonly moderation: LinkModeration,
    private readonly notices: SignInChangeNotices,
  ) {}

  /**
   * An account without a password (the CLI, single sign-on); refused when the email is
   * registered. `admin`: an admin of the instance (the CLI's `account create --admin`).
   */
  async create(email: string, options: { admin?: boolean } = {}): Promise<AccountView> {
    const normalized = acceptedEmail(email);
    const account = await this.accounts.create(normalized, null, options.admin ?? false);
    if (!account) throw ApiError.accountExists(normalized);
    return toAccountView(account);
  }

  /** The account, or a 404 `not_found` (the account was deleted, e.g. while a page was open). */
  async get(id: string): Promise<AccountView> {
    const account = await this.accounts.findById(id);
    if (!account) throw noSuchAccount();
    return toAccountView(account);
  }

  async findByEmail(email: string): Promise<AccountView | null> {
    const key = emailLookupKey(email);
    const account = key === null ? null : await this.accounts.findByEmail(key);
    return account && toAccountView(account);
  }

  async findById(id: string): Promise<AccountView | null> {
    const account = await this.accounts.findById(id);
    return account && toAccountView(account);
  }

  /**
   * Sign-up: an account with a password; refused when the email is registered. `verifyEmail`
   * (SIGNUP=verify): the account creates nothing until the link sent to the address is opened.
   */
  async register(email: string, password: string, options: { verifyEmail?: boolean } = {}): Promise<AccountView> {
    const normalized = acceptedEmail(email);
    const problem = await passwordProblem(password, normalized);
    if (problem) throw weakPassword(problem);
    const verified = !options.verifyEmail;
    const account = await this.accounts.create(normalized, await hashPassword(password), false, verified);
    if (!account) throw ApiError.accountExists(normalized);
    return toAccountView(account);
  }

  /**
   * The account these credentials open, or null. An unknown email is checked against a decoy
   * hash, so it takes as long as a wrong password and cannot be told apart.
   */
  async verifyCredentials(email: string, password: string): Promise<AccountView | null> {
    const account = await this.findRecordByEmail(email);
    const ok = await verifyPassword(password, account?.passwordHash ?? (await decoyHash()));
    return ok && account?.passwordHash ? toAccountView(account) : null;
  }

  /**
   * Which device of the account a device cookie proves (a stable key for its own sign-in
   * counter), or null when the cookie is missing, forged, for another account or from before
   * the password last changed.
   */
  async trustedDevice(email: string, cookie: string | undefined): Promise<string | null> {
    if (cookie === undefined) return null;
    const account = await this.findRecordByEmail(email);
    if (!account?.passwordHash) return null;
    const nonce = verifyDeviceCookie(cookie, account.id, account.passwordHash);
    return nonce && `${account.id}:${nonce}`;
  }

  /** A new device cookie for a browser that just proved the account's password. */
  async deviceCookie(accountId: string): Promise<string | null> {
    const account = await this.accounts.findById(accountId);
    return account?.passwordHash ? issueDeviceCookie(account.id, account.passwordHash) : null;
  }

  /** Refuses (400, as setPassword would) a new password the account may not take. */
  async checkNewPassword(accountId: string, password: string): Promise<void> {
    const account = await this.accounts.findById(accountId);
    if (!account) throw noSuchAccount();
    const problem = await passwordProblem(password, account.email);
    if (problem) throw weakPassword(problem);
  }

  /** The account's email is proved: it may create links and tokens from now on. */
  async markEmailVerified(accountId: string): Promise<void> {
    await this.accounts.markEmailVerified(accountId);
  }

  /** Sets a new password and ends every other session of the account. */
  async setPassword(accountId: string, password: string, keepSessionHash?: string): Promise<void> {
    const account = await this.accounts.findById(accountId);
    if (!account) throw noSuchAccount();
    const problem = await passwordProblem(password, account.email);
    if (problem) throw weakPassword(problem);
    const passwordHash = await hashPassword(password);
    // Other sessions end first: should the process stop in between, the worst case is a person
    // signed out with the old password still set, never other sessions alive under a new one.
    await this.sessions.endAllBut(accountId, keepSessionHash);
    if (!(await this.accounts.setPassword(accountId, passwordHash))) throw noSuchAccount();
    await this.notices.tell(accountId, 'password_set');
  }

  async setPasswordByEmail(email: string, password: string): Promise<void> {
    const account = await this.findRecordByEmail(email);
    if (!account) throw noSuchAccount(email);
    await this.setPassword(account.id, password);
  }

  /** Whether the account has a password (accounts made by the CLI or single sign-on may not). */
  async hasPassword(accountId: string): Promise<boolean> {
    return Boolean((await this.accounts.findById(accountId))?.passwordHash);
  }

  /**
   * The account's own sign-in factors, with when each was added (ISO; null when unknown: a
   * password set before the date was kept). Passkeys are listed by PasskeysService.
   */
  async signInFactors(
    accountId: string,
  ): Promise<{ password: { set: boolean; set_at: string | null }; totp: { on: boolean; since: string | null } }> {
    const account = await this.accounts.findById(accountId);
    if (!account) throw noSuchAccount();
    const twoFactor = await this.accounts.findTwoFactor(accountId);
    return {
      password: { set: account.passwordHash !== null, set_at: account.passwordSetAt?.toISOString() ?? null },
      totp: { on: Boolean(twoFactor?.totpEnabledAt), since: twoFactor?.totpEnabledAt?.toISOString() ?? null },
    };
  }

  /** Whether signing in to the account asks for a second factor (TOTP), and recovery codes left. */
  async twoFactorStatus(accountId: string): Promise<{ enabled: boolean; recoveryCodesLeft: number }> {
    const state = await this.accounts.findTwoFactor(accountId);
    if (!state?.totpEnabledAt) return { enabled: false, recoveryCodesLeft: 0 };
    return { enabled: true, recoveryCodesLeft: await this.accounts.countUnusedRecoveryCodes(accountId) };
  }

  /**
   * Turns TOTP on with the secret the owner's app was shown, once `code` proves the app has it.
   * Returns the ten recovery codes (shown once, only their hashes are kept), or null for a wrong
   * code (or a secret this service cannot have made).
   */
  async enableTotp(accountId: string, secret: string, code: string): Promise<string[] | null> {
    if (!isTotpSecret(secret)) return null;
    const step = await acceptedTotpStep(secret, code, null);
    if (step === null) return null;
    const recoveryCodes = newRecoveryCodes();
    await this.accounts.enableTotp(accountId, secret, step, recoveryCodes.map(hashRecoveryCode));
    await this.notices.tell(accountId, 'totp_on');
    return recoveryCodes;
  }

  /**
   * Whether `code` is the account's second factor: a TOTP code of the current step (±1) not used
   * before, or an unused recovery code (then used up). Each is accepted once, on any instance.
   */
  async verifySecondFactor(accountId: string, code: string): Promise<boolean> {
    const state = await this.accounts.findTwoFactor(accountId);
    if (!state?.totpEnabledAt || !state.totpSecret) return false;
    if (looksLikeRecoveryCode(code)) return this.accounts.useRecoveryCode(accountId, hashRecoveryCode(code));
    const step = await acceptedTotpStep(state.totpSecret, code, state.totpLastStep);
    return step !== null && (await this.accounts.acceptTotpStep(accountId, step));
  }

  async disableTotp(accountId: string): Promise<void> {
    await this.accounts.disableTotp(accountId);
    await this.notices.tell(accountId, 'totp_off');
  }

  /** The CLI's `account reset-2fa`: turns TOTP off for an owner who lost their app and codes. */
  async resetTwoFactorByEmail(email: string): Promise<boolean> {
    const account = await this.findRecordByEmail(email);
    if (!account) throw noSuchAccount(email);
    const state = await this.accounts.findTwoFactor(account.id);
    if (!state?.totpEnabledAt) return false;
    await this.disableTotp(account.id);
    return true;
  }

  /** The account an e-mail address names, or 404 `not_found` ("No account for …"). */
  async getByEmail(email: string): Promise<AccountView> {
    const account = await this.findRecordByEmail(email);
    if (!account) throw noSuchAccount(email);
    return toAccountView(account);
  }

  /** Whether `typed` is the account's address under the email rule (another Unicode form, any case). */
  isAddressOf(account: AccountView, typed: string): boolean {
    return emailLookupKey(typed) === account.email;
  }

  /**
   * The accounts whose stored address breaks the email rule (made before it), for an admin to
   * look at: reported, never changed (which address the owner meant is theirs to say).
   */
  async emailRuleBreaks(): Promise<EmailRuleBreak[]> {
    const found: EmailRuleBreak[] = [];
    for await (const batch of this.accounts.emailsInBatches()) {
      for (const { id, email } of batch) {
        const breaks = emailRuleBreaks(email);
        if (breaks.length > 0) found.push({ id, email: printableEmail(email), breaks });
      }
    }
    return found;
  }

  /** The account record an address names (looked up leniently: see emailLookupKey). */
  private async findRecordByEmail(email: string): Promise<AccountRecord | null> {
    const key = emailLookupKey(email);
    return key === null ? null : this.accounts.findByEmail(key);
  }

  // ---- the instance's administration ------------------------------------------------------

  /** A page of the accounts, newest first; `q`: part of an e-mail address. */
  async listForAdmin(limit: number, offset: number, q?: string): Promise<{ data: AdminAccountView[]; total: number }> {
    const { accounts, total } = await this.accounts.listForAdmin(limit, offset, q?.trim() || undefined);
    return { data: accounts.map(toAdminAccountView), total };
  }

  async getForAdmin(id: string): Promise<AdminAccountView> {
    const account = await this.accounts.findById(id);
    if (!account) throw noSuchAccount();
    return toAdminAccountView(account);
  }

  /**
   * Makes the account an admin, or (`admin` false) no longer one: then its tokens' `admin` scope
   * stops working and /admin answers 404 to it at once. The last enabled admin cannot be demoted.
   */
  async setAdmin(accountId: string, admin: boolean): Promise<AccountView> {
    const account = await this.accounts.findById(accountId);
    if (!account) throw noSuchAccount();
    if (!admin) await this.refuseLastAdmin(account, 'stop being an admin');
    await this.accounts.setAdmin(accountId, admin);
    return this.get(accountId);
  }

  /**
   * Disables the account: it cannot sign in, its sessions end, its tokens answer 403
   * `account_disabled`, and its live links are disabled (they come back when it is enabled). Refused
   * for the caller's own account (`by`) and for the last enabled admin. Disabling a disabled
   * account keeps its first reason.
   */
  async disable(accountId: string, reason: string | null, by?: string): Promise<AccountView> {
    if (by === accountId) throw ApiError.adminConflict('You cannot disable your own account');
    const account = await this.accounts.findById(accountId);
    if (!account) throw noSuchAccount();
    await this.refuseLastAdmin(account, 'be disabled');
    // The flag first: from here on the account's tokens and sessions are refused on every instance.
    await this.accounts.disable(accountId, reason, new Date());
    await this.sessions.endAllBut(accountId);
    await this.moderation.disableForAccount(accountId);
    return this.get(accountId);
  }

  /** Enables a disabled account and the links its disabling disabled (not those on a blocked host). */
  async enable(accountId: string): Promise<AccountView> {
    if (!(await this.accounts.enable(accountId))) throw noSuchAccount();
    await this.moderation.enableForAccount(accountId);
    return this.get(accountId);
  }

  /** The instance must keep an enabled admin, or nobody could open /admin again (but the CLI). */
  private async refuseLastAdmin(account: AccountRecord, change: string): Promise<void> {
    if (!account.isAdmin || account.disabledAt !== null) return;
    if ((await this.accounts.countActiveAdmins()) <= 1) {
      throw ApiError.adminConflict(
        `${account.email} is the last admin of this instance and cannot ${change}: make another account an admin first`,
      );
    }
  }

  /**
   * Deletes the account with its links, tokens and sessions (by foreign key), then drops its links
   * from every instance's redirect cache. The last enabled admin is refused (`admin_conflict`),
   * and so is an admin deleting their own account from the admin pages (`by`).
   */
  async delete(accountId: string, by?: string): Promise<boolean> {
    if (by === accountId) throw ApiError.adminConflict('You cannot delete your own account from the admin pages');
    const account = await this.accounts.findById(accountId);
    if (!account) return false;
    await this.refuseLastAdmin(account, 'be deleted');
    const codes = await this.links.codesOfAccount(accountId);
    const deleted = await this.accounts.delete(accountId);
    await this.links.forgetDeleted(codes);
    return deleted;
  }
}
