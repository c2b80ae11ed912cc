import { Module } from '@nestjs/common';
import { SessionsModule } from '../auth/sessions/sessions.module.js';
import { LinksModule } from '../links/links.module.js';
import { MailModule } from '../mail/mail.module.js';
import { AccountsRepository } from './accounts.repository.js';
import { AccountsService } from './accounts.service.js';
import { SignInChangeNotices } from './sign-in-change-notices.js';

@Module({
  imports: [SessionsModule, LinksModule, MailModule],
  providers: [AccountsRepository, AccountsService, SignInChangeNotices],
  exports: [AccountsService, SignInChangeNotices],
})
export class AccountsModule {}
