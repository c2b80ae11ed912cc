import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { AccountsService } from '../../accounts/accounts.service.js';
import { emailLookupKey } from '../../accounts/email-address.js';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/config.tokens.js';
import { passwordResetMail } from '../../mail/mail-messages.js';
import { MailOutbox } from '../../mail/mail-outbox.js';
import { EmailLinkLimits } from './email-link-limits.js';
import { EmailTokensRepository } from './email-tokens.repository.js';

/** How long a reset link works. */
export const RESET_LINK_MINUTES = 60;

/** How long after the answer has gone out the reset email is prepared. */
const SEND_DELAY_MS = 50;

/** What asking for a reset link came to: the same for every address, known or not. */
export type ResetRequest =
  /** `sendAfterAnswer`: to be called once the answer has gone out (the work that differs). */
  { outcome: 'accepted'; sendAfterAnswer: () => void } | { outcome: 'limited'; retryAfterSeconds: number };

/**
 * "Forgot password?": a single-use link by email, valid RESET_LINK_MINUTES, that sets a new
 * password under the sign-up's rules and ends every session of the account (a two-factor account
 * still asks for its code at the next sign-in: nothing here signs anyone in).
 *
 * Nothing a visitor sees tells whether an address has an account: the answer is the same page,
 * the limits count every address, and the work that differs (finding the account, storing the
 * token and the email) starts once the answer has gone out (`sendAfterAnswer`): done while the
 * answer was being written, it made the answers to known addresses measurably slower.
 */
@Injectable()
export class PasswordResets implements OnApplicationShutdown {
  private readonly logger = new Logger('PasswordResets');
  /** Sends under way, finished before the instance stops. */
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly accounts: AccountsService,
    private readonly tokens: EmailTokensRepository,
    private readonly outbox: MailOutbox,
    private readonly limits: EmailLinkLimits,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Whether reset links can be sent at all (SMTP_URL); without, the page says to ask an admin. */
  get available(): boolean {
    return this.outbox.enabled;
  }

  async request(email: string, ip: string): Promise<ResetRequest> {
    // The typed address counts as the lookup does (case, spaces), whether it is an account's or not.
    const key = emailLookupKey(email) ?? email.trim().toLowerCase();
    const wait = await this.limits.count(`ip:${ip}`, `reset:${key}`);
    if (wait !== null) return { outcome: 'limited', retryAfterSeconds: wait };
    const sendAfterAnswer = (): void => {
      // A moment after the answer, not at once: the database work of a known address would
      // otherwise share the event loop with the last bytes of the answer (a client in this
      // process, as in the specs, reads it a little later for known addresses).
      const send = new Promise((resolve) => setTimeout(resolve, SEND_DELAY_MS))
        .then(() => this.send(email))
        .catch((error: unknown) =>
          this.logger.error(`A password reset email was not stored: ${(error as Error).message}`),
        )
        .finally(() => this.pending.delete(send));
      this.pending.add(send);
    };
    return { outcome: 'accepted', sendAfterAnswer };
  }

  private async send(email: string): Promise<void> {
    if (!this.available) return;
    const account = await this.accounts.findByEmail(email);
    if (!account || account.disabled_at !== null) return;
    const token = await this.tokens.issue(account.id, 'password_reset', RESET_LINK_MINUTES * 60_000);
    const base = this.config.shortBaseUrl;
    await this.outbox.send(
      passwordResetMail(account.email, base, `${base}/password-reset/${token}`, RESET_LINK_MINUTES),
    );
  }

  /** Whether a link's token still works (unknown, expired and used ones do not). */
  async linkWorks(token: string): Promise<boolean> {
    return (await this.tokens.peek(token, 'password_reset')) !== null;
  }

  /**
   * Sets the password the link's owner chose: refused (400) as sign-up refuses it, before the
   * link is used up; false when the link does not work (any more). Every session of the account
   * ends.
   */
  async complete(token: string, password: string): Promise<boolean> {
    const accountId = await this.tokens.peek(token, 'password_reset');
    if (accountId === null) return false;
    await this.accounts.checkNewPassword(accountId, password);
    if ((await this.tokens.use(token, 'password_reset')) === null) return false;
    await this.accounts.setPassword(accountId, password);
    return true;
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.pending]);
  }
}
