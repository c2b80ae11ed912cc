import { Module } from '@nestjs/common';
import { AccountsModule } from '../../accounts/accounts.module.js';
import { PagesModule } from '../../pages/pages.module.js';
import { EmailLinksModule } from '../email-links/email-links.module.js';
import { OidcService } from './oidc.service.js';
import { PasskeysRepository } from './passkeys.repository.js';
import { PasskeysService } from './passkeys.service.js';
import { SignInChallengesRepository } from './sign-in-challenges.repository.js';
import { SignInChallenges } from './sign-in-challenges.service.js';
import { SignInController } from './sign-in.controller.js';
import { SignInFlow } from './sign-in-flow.service.js';
import { SignInLimits } from './sign-in-limits.service.js';
import { SudoMode } from './sudo-mode.service.js';

/**
 * Signing in to the pages: passwords (and TOTP codes), passkeys, single sign-on, with the limits
 * every attempt counts against and the single-use steps in between (their rules: SignInFlow).
 * Every way in ends in a session (`Pages.finishSignIn`).
 */
@Module({
  imports: [AccountsModule, PagesModule, EmailLinksModule],
  controllers: [SignInController],
  providers: [
    SignInLimits,
    SignInChallengesRepository,
    SignInChallenges,
    PasskeysRepository,
    PasskeysService,
    OidcService,
    SudoMode,
    SignInFlow,
  ],
  exports: [SignInLimits, SignInChallenges, PasskeysService, OidcService, SudoMode, SignInFlow],
})
export class SignInModule {}
