import { Module } from '@nestjs/common';
import { SessionsModule } from '../auth/sessions/sessions.module.js';
import { LinksModule } from '../links/links.module.js';
import { AccountsRepository } from './accounts.repository.js';
import { AccountsService } from './accounts.service.js';

@Module({
  imports: [SessionsModule, LinksModule],
  providers: [AccountsRepository, AccountsService],
  exports: [AccountsService],
})
export class AccountsModule {}
