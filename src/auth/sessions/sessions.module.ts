import { Module } from '@nestjs/common';
import { CsrfTokens } from './csrf-tokens.js';
import { DashboardCookies } from './dashboard-cookies.js';
import { SessionsRepository } from './sessions.repository.js';
import { SessionsService } from './sessions.service.js';

/** Browser sessions: what opens a page, as a token opens the API (see AccessGuard). */
@Module({
  providers: [SessionsRepository, SessionsService, DashboardCookies, CsrfTokens],
  exports: [SessionsService, DashboardCookies, CsrfTokens],
})
export class SessionsModule {}
