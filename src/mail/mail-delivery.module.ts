import { Module } from '@nestjs/common';
import { MailDispatcher } from './mail-dispatcher.js';
import { MailModule } from './mail.module.js';
import { MailNoticesRepository } from './notices/mail-notices.repository.js';
import { MailNotices } from './notices/mail-notices.js';

/**
 * Sending the outbox and telling owners and admins what happened: the serving application's
 * background work (nothing runs without SMTP_URL). Any number of instances may run it together.
 */
@Module({
  imports: [MailModule],
  providers: [MailDispatcher, MailNotices, MailNoticesRepository],
  exports: [MailNotices],
})
export class MailDeliveryModule {}
