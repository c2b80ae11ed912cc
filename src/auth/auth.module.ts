import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TokensModule } from './tokens.module.js';
import { ApiTokenGuard } from './api-token.guard.js';

@Module({
  imports: [TokensModule],
  providers: [{ provide: APP_GUARD, useClass: ApiTokenGuard }],
})
export class AuthModule {}
