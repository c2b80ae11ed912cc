import { Module } from '@nestjs/common';
import { SignInModule } from '../../auth/sign-in/sign-in.module.js';
import { PagesModule } from '../../pages/pages.module.js';
import { AccountsModule } from '../accounts.module.js';
import { AccountPagesController } from './account.pages.controller.js';

@Module({
  imports: [AccountsModule, SignInModule, PagesModule],
  controllers: [AccountPagesController],
})
export class AccountPagesModule {}
