import { Module } from '@nestjs/common';
import { LinksModule } from '../links/links.module.js';
import { ReportsRepository } from './reports.repository.js';
import { ReportsService } from './reports.service.js';

/** Reports of short links (the public /report page is ReportPagesModule; the admins act on them). */
@Module({
  imports: [LinksModule],
  providers: [ReportsRepository, ReportsService],
  exports: [ReportsService],
})
export class ReportsModule {}
