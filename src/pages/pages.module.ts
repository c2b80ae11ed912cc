import { Module } from '@nestjs/common';
import { SessionsModule } from '../auth/sessions/sessions.module.js';
import { Pages } from './pages.js';

/**
 * What every feature's page controllers share: `Pages` (rendering, signed-out CSRF, starting a
 * session), and the sessions that the page error filter reads (re-exported for it).
 */
@Module({
  imports: [SessionsModule],
  providers: [Pages],
  exports: [Pages, SessionsModule],
})
export class PagesModule {}
