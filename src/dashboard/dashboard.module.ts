import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module.js';
import { TokensModule } from '../auth/tokens.module.js';
import { ClicksModule } from '../clicks/clicks.module.js';
import { LinksModule } from '../links/links.module.js';
import { AccountController } from './account.controller.js';
import { DashboardController } from './dashboard.controller.js';
import { Pages } from './pages.js';
import { SignInController } from './sign-in.controller.js';
import { SessionsRepository } from './sessions.repository.js';
import { SessionsService } from './sessions.service.js';
import { SignInLimits } from './sign-in-limits.service.js';
import { SignInChallengesRepository } from './sign-in-challenges.repository.js';
import { SignInChallenges } from './sign-in-challenges.service.js';
import { CsrfTokens } from './csrf-tokens.js';
import { PasskeysRepository } from './passkeys.repository.js';
import { PasskeysService } from './passkeys.service.js';
import { OidcService } from './oidc.service.js';
import { DashboardCookies } from './dashboard-cookies.js';

@Module({
  imports: [AccountsModule, TokensModule, LinksModule, ClicksModule],
  controllers: [DashboardController, SignInController, AccountController],
  providers: [
    SessionsRepository,
    SessionsService,
    SignInLimits,
    SignInChallengesRepository,
    SignInChallenges,
    DashboardCookies,
    CsrfTokens,
    PasskeysRepository,
    PasskeysService,
    OidcService,
    Pages,
  ],
})
export class DashboardModule {}
