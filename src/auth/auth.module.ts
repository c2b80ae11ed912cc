import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AccessGuard } from './access.guard.js';
import { SessionsModule } from './sessions/sessions.module.js';
import { TokensModule } from './tokens.module.js';

@Module({
  imports: [TokensModule, SessionsModule],
  providers: [{ provide: APP_GUARD, useClass: AccessGuard }],
})
export class AuthModule {}
