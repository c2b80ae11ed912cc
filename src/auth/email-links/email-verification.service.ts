import { Inject, Injectable } from '@nestjs/common';
import { AccountsService } from '../../accounts/accounts.service.js';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/config.tokens.js';
import { verifyEmailMail } from '../../mail/mail-messages.js';
import { MailOutbox } from '../../mail/mail-outbox.js';
import { EmailLinkLimits } from './email-link-limits.js';
import { EmailTokensRepository } from './email-tokens.repository.js';

/** How long the link that proves a sign-up's address works. */
export const VERIFY_LINK_HOURS = 24;

/**
 * SIGNUP=verify: a sign-up gets a link by email (VERIFY_LINK_HOURS); until it is opened the
 * account signs in, but creates no links or tokens (403 `email_unverified`, checked by the guard
 * on routes marked `@VerifiedEmailToCreate()`).
 */
@Injectable()
export class EmailVerification {
  constructor(
    private readonly accounts: AccountsService,
    private readonly tokens: EmailTokensRepository,
    private readonly outbox: MailOutbox,
    private readonly limits: EmailLinkLimits,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Whether sign-ups must prove their address. */
  get required(): boolean {
    return this.config.signup === 'verify';
  }

  /** Stores the email with a new link for the account's address. */
  async sendLink(accountId: string): Promise<void> {
    const account = await this.accounts.get(accountId);
    const token = await this.tokens.issue(account.id, 'verify_email', VERIFY_LINK_HOURS * 3_600_000);
    const base = this.config.shortBaseUrl;
    await this.outbox.send(verifyEmailMail(account.email, base, `${base}/signup/verify/${token}`, VERIFY_LINK_HOURS));
  }

  /** "Send again": the seconds to wait when the account asked too often, else null (sent). */
  async sendAgain(accountId: string, ip: string): Promise<number | null> {
    const wait = await this.limits.count(`ip:${ip}`, `verify:${accountId}`);
    if (wait !== null) return wait;
    await this.sendLink(accountId);
    return null;
  }

  /** Opens a link: true when it proved the address (the account creates from now on). */
  async verify(token: string): Promise<boolean> {
    const accountId = await this.tokens.use(token, 'verify_email');
    if (accountId === null) return false;
    await this.accounts.markEmailVerified(accountId);
    return true;
  }
}
