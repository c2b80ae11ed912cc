import { Module } from '@nestjs/common';
import { AccountsModule } from '../accounts/accounts.module.js';
import { BlockedHostsModule } from '../blocked-hosts/blocked-hosts.module.js';
import { LinksModule } from '../links/links.module.js';
import { ReportsModule } from '../reports/reports.module.js';
import { AdminController } from './admin.controller.js';
import { AdminService } from './admin.service.js';
import { AuditLog } from './audit-log.js';
import { AuditLogRepository } from './audit-log.repository.js';

/**
 * The instance's administration: the admin API (`/api/admin`, scope `admin`), AdminService (every
 * admin action, from the API, the pages and the CLI) and its audit log. The pages are
 * AdminPagesModule's.
 */
@Module({
  imports: [AccountsModule, LinksModule, ReportsModule, BlockedHostsModule],
  controllers: [AdminController],
  providers: [AdminService, AuditLog, AuditLogRepository],
  exports: [AdminService, AuditLog],
})
export class AdminModule {}
