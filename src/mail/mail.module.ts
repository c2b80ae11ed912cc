import { Module } from '@nestjs/common';
import { MailOutbox } from './mail-outbox.js';
import { MailRepository } from './mail.repository.js';

/** Email: the outbox every feature stores its messages in (sending is MailDeliveryModule's). */
@Module({
  providers: [MailRepository, MailOutbox],
  exports: [MailOutbox, MailRepository],
})
export class MailModule {}
