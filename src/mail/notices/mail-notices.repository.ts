import { Injectable } from '@nestjs/common';
import { PrismaService } from '../../database/prisma.service.js';

/** A webhook endpoint disabled in a window, and who owns it. */
export interface DisabledEndpoint {
  url: string;
  failingSince: Date | null;
  ownerEmail: string;
}

/** A report sent in a window. */
export interface ReportInWindow {
  code: string;
  reason: string;
  createdAt: Date;
}

/** What the notices read: the events of a window, and whom to tell. */
@Injectable()
export class MailNoticesRepository {
  constructor(private readonly prisma: PrismaService) {}

  async endpointsDisabled(since: Date, until: Date): Promise<DisabledEndpoint[]> {
    const rows = await this.prisma.webhookEndpoint.findMany({
      where: { disabledAt: { gt: since, lte: until } },
      orderBy: [{ disabledAt: 'asc' }, { id: 'asc' }],
      select: { url: true, failingSince: true, account: { select: { email: true, disabledAt: true } } },
    });
    return rows
      .filter((row) => row.account.disabledAt === null)
      .map((row) => ({ url: row.url, failingSince: row.failingSince, ownerEmail: row.account.email }));
  }

  /** Reports sent in the window, oldest first (at most `limit`: a digest lists that many and counts the rest). */
  reportsSent(since: Date, until: Date, limit: number): Promise<ReportInWindow[]> {
    return this.prisma.report.findMany({
      where: { createdAt: { gt: since, lte: until } },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: limit,
      select: { code: true, reason: true, createdAt: true },
    });
  }

  countReportsSent(since: Date, until: Date): Promise<number> {
    return this.prisma.report.count({ where: { createdAt: { gt: since, lte: until } } });
  }

  /** The addresses of the instance's enabled admins. */
  async adminEmails(): Promise<string[]> {
    const admins = await this.prisma.account.findMany({
      where: { isAdmin: true, disabledAt: null },
      orderBy: { email: 'asc' },
      select: { email: true },
    });
    return admins.map((admin) => admin.email);
  }
}
