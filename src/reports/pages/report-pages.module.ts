import { Module } from '@nestjs/common';
import { PagesModule } from '../../pages/pages.module.js';
import { ReportsModule } from '../reports.module.js';
import { ReportLimits } from './report-limits.js';
import { ReportPagesController } from './report.pages.controller.js';

/** The public /report page and its limit (the rate limits' storage, so the HTTP app only). */
@Module({
  imports: [ReportsModule, PagesModule],
  controllers: [ReportPagesController],
  providers: [ReportLimits],
})
export class ReportPagesModule {}
