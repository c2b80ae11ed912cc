import { Module } from '@nestjs/common';
import { AccountsModule } from '../../accounts/accounts.module.js';
import { MailModule } from '../../mail/mail.module.js';
import { PagesModule } from '../../pages/pages.module.js';
import { EmailLinkLimits } from './email-link-limits.js';
import { EmailLinksPagesController } from './email-links.pages.controller.js';
import { EmailTokensRepository } from './email-tokens.repository.js';
import { EmailVerification } from './email-verification.service.js';
import { PasswordResets } from './password-resets.service.js';

/**
 * Links sent by email: password reset and the proof of a sign-up's address, their single-use
 * tokens and their limits (the rate limits' storage, so the HTTP app only).
 */
@Module({
  imports: [AccountsModule, MailModule, PagesModule],
  controllers: [EmailLinksPagesController],
  providers: [EmailTokensRepository, EmailLinkLimits, PasswordResets, EmailVerification],
  exports: [EmailVerification],
})
export class EmailLinksModule {}
