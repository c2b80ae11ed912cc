import { Module } from '@nestjs/common';
import { PagesModule } from '../../pages/pages.module.js';
import { AdminModule } from '../admin.module.js';
import { AdminPagesController } from './admin.pages.controller.js';

/** The /admin pages (admins only), on AdminService like the admin API and the CLI. */
@Module({
  imports: [AdminModule, PagesModule],
  controllers: [AdminPagesController],
})
export class AdminPagesModule {}
