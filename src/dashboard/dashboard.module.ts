import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module.js';
import { TokensModule } from '../auth/tokens.module.js';
import { ClicksModule } from '../clicks/clicks.module.js';
import { LinksModule } from '../links/links.module.js';
import { AccountController } from './account.controller.js';
import { DashboardController } from './dashboard.controller.js';
import { Pages } from './pages.js';
import { SignInController } from './sign-in.controller.js';
import { SessionsModule } from '../auth/sessions/sessions.module.js';
import { SignInLimits } from './sign-in-limits.service.js';
import { SignInChallengesRepository } from './sign-in-challenges.repository.js';
import { SignInChallenges } from './sign-in-challenges.service.js';
import { PasskeysRepository } from './passkeys.repository.js';
import { PasskeysService } from './passkeys.service.js';
import { OidcService } from './oidc.service.js';

@Module({
  imports: [AccountsModule, TokensModule, SessionsModule, LinksModule, ClicksModule],
  controllers: [DashboardController, SignInController, AccountController],
  providers: [
    SignInLimits,
    SignInChallengesRepository,
    SignInChallenges,
    PasskeysRepository,
    PasskeysService,
    OidcService,
    Pages,
  ],
})
export class DashboardModule {}
