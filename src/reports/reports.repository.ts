import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service.js';

export interface ReportRecord {
  id: string;
  code: string;
  reason: string;
  details: string;
  email: string | null;
  createdAt: Date;
  status: string;
  resolvedAt: Date | null;
  resolvedBy: string | null;
}

@Injectable()
export class ReportsRepository {
  constructor(private readonly prisma: PrismaService) {}

  add(report: { code: string; reason: string; details: string; email: string | null }): Promise<ReportRecord> {
    return this.prisma.report.create({ data: report });
  }

  find(id: string): Promise<ReportRecord | null> {
    return this.prisma.report.findUnique({ where: { id } });
  }

  /** One page of the reports with this status, newest first. */
  async listByStatus(
    status: string,
    limit: number,
    offset: number,
  ): Promise<{ reports: ReportRecord[]; total: number }> {
    const [reports, total] = await Promise.all([
      this.prisma.report.findMany({
        where: { status },
        orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
        take: limit,
        skip: offset,
      }),
      this.prisma.report.count({ where: { status } }),
    ]);
    return { reports, total };
  }

  /** Settles an open report (`resolved` or `dismissed`); false when it is not open (or unknown). */
  async settle(id: string, status: 'resolved' | 'dismissed', by: string, at: Date): Promise<boolean> {
    const updated = await this.prisma.report.updateMany({
      where: { id, status: 'open' },
      data: { status, resolvedBy: by, resolvedAt: at },
    });
    return updated.count > 0;
  }

  /** Resolves every open report of a link (it was disabled). */
  async resolveOpenOfCode(code: string, by: string, at: Date): Promise<void> {
    await this.prisma.report.updateMany({
      where: { code, status: 'open' },
      data: { status: 'resolved', resolvedBy: by, resolvedAt: at },
    });
  }
}
