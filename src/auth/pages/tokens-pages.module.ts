import { Module } from '@nestjs/common';
import { PagesModule } from '../../pages/pages.module.js';
import { SignInModule } from '../sign-in/sign-in.module.js';
import { TokensModule } from '../tokens.module.js';
import { TokensPagesController } from './tokens.pages.controller.js';

@Module({
  imports: [TokensModule, PagesModule, SignInModule],
  controllers: [TokensPagesController],
})
export class TokensPagesModule {}
