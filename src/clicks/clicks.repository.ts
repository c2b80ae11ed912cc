import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service.js';

/** A link's row as the analytics read it. */
export interface ClickedLink {
  code: string;
  clicks: number;
  createdAt: Date;
  clicksThroughBatch: number;
}

export interface LinkClickRows {
  link: ClickedLink;
  days: Array<{ day: string; clicks: number }>;
  /** Per host over the window, most clicks first (all of them when `referrerLimit` is undefined). */
  referrers: Array<{ host: string; clicks: number }>;
}

@Injectable()
export class ClicksRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * The account's link `code` with its daily rows and referrer totals from `fromDay` on, or null
   * when the account has no such link. One transaction: the row, its daily rows and the last
   * click batch they include come from one snapshot, whatever a fold does meanwhile.
   */
  async linkClicks(
    accountId: string,
    code: string,
    fromDay: string,
    referrerLimit: number | undefined,
  ): Promise<LinkClickRows | null> {
    const [link, days, referrers] = await this.prisma.$transaction([
      this.prisma.link.findFirst({
        where: { code, accountId },
        select: { code: true, clicks: true, createdAt: true, clicksThroughBatch: true },
      }),
      this.prisma.linkDailyClicks.findMany({
        where: { code, day: { gte: fromDay }, link: { accountId } },
        select: { day: true, clicks: true },
        orderBy: { day: 'asc' },
      }),
      this.prisma.linkDailyReferrer.groupBy({
        by: ['host'],
        where: { code, day: { gte: fromDay }, link: { accountId } },
        _sum: { clicks: true },
        orderBy: [{ _sum: { clicks: 'desc' } }, { host: 'asc' }],
        take: referrerLimit,
      }),
    ]);
    if (!link) return null;
    return {
      link,
      days,
      referrers: referrers.map((row) => ({ host: row.host, clicks: row._sum.clicks ?? 0 })),
    };
  }
}
