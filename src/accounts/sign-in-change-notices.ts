import { Inject, Injectable, Logger } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.tokens.js';
import { signInChangedMail } from '../mail/mail-messages.js';
import { MailOutbox } from '../mail/mail-outbox.js';
import { AccountsRepository } from './accounts.repository.js';

/** The changes to how an account signs in that its owner is told of, as the email says them. */
const CHANGES = {
  password_set: 'A new password was set',
  totp_on: 'Two-factor sign-in was turned on',
  totp_off: 'Two-factor sign-in was turned off',
  passkey_added: 'A passkey was added',
  passkey_removed: 'A passkey was removed',
} as const;

export type SignInChange = keyof typeof CHANGES;

/**
 * Tells an account's owner by email of each change to how it signs in, whoever made it (the
 * account page, a password reset, the CLI): a thief who added a way in, or took one away, is
 * noticed. Nothing is sent without SMTP_URL. The change has happened when this is called: a
 * failure to store the email is logged, never turned into a failed change.
 */
@Injectable()
export class SignInChangeNotices {
  private readonly logger = new Logger('Mail');

  constructor(
    private readonly accounts: AccountsRepository,
    private readonly outbox: MailOutbox,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async tell(accountId: string, change: SignInChange, at = new Date()): Promise<void> {
    if (!this.outbox.enabled) return;
    try {
      const account = await this.accounts.findById(accountId);
      if (!account) return;
      await this.outbox.send(signInChangedMail(account.email, this.config.shortBaseUrl, CHANGES[change], at));
    } catch (error) {
      this.logger.warn(`Storing the ${change} notice failed: ${(error as Error).message}`);
    }
  }
}
