import { Module } from '@nestjs/common';
import { TokensRepository } from './tokens.repository.js';
import { TokensService } from './tokens.service.js';

@Module({
  providers: [TokensRepository, TokensService],
  exports: [TokensService],
})
export class TokensModule {}
