import { Module } from '@nestjs/common';
import { PagesModule } from '../../pages/pages.module.js';
import { ClicksModule } from '../clicks.module.js';
import { ClicksPagesController } from './clicks.pages.controller.js';

@Module({
  imports: [ClicksModule, PagesModule],
  controllers: [ClicksPagesController],
})
export class ClicksPagesModule {}
