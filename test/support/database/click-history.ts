import { PrismaService } from '../../../src/database/prisma.service.js';

/**
 * Sums a link's daily rows, written straight into the tables by a spec, into the rows the click
 * flush writes beside them: the link's monthly referrer and label rows (windows of many days read
 * full months there) and its account's daily rows (the account overview reads those). Call it
 * before the link has any real click: the rows of those are the flush's to write.
 */
export async function sumRollups(prisma: PrismaService, code: string): Promise<void> {
  await prisma.$executeRaw`INSERT INTO link_monthly_referrers (code, month, host, clicks)
    SELECT code, substr(day, 1, 7), host, sum(clicks) FROM link_daily_referrers WHERE code = ${code}
    GROUP BY 1, 2, 3`;
  await prisma.$executeRaw`INSERT INTO link_monthly_labels (code, month, dimension, label, clicks)
    SELECT code, substr(day, 1, 7), dimension, label, sum(clicks) FROM link_daily_labels WHERE code = ${code}
    GROUP BY 1, 2, 3, 4`;
  const link = await prisma.link.findUniqueOrThrow({ where: { code } });
  if (link.accountId === null) return;
  const accountId = link.accountId;
  const days = await prisma.linkDailyClicks.findMany({ where: { code } });
  for (const { day, clicks, bots } of days) {
    await prisma.accountDailyClicks.upsert({
      where: { accountId_day: { accountId, day } },
      create: { accountId, day, clicks, bots },
      update: { clicks: { increment: clicks }, bots: { increment: bots } },
    });
    await prisma.accountDailyLink.create({ data: { accountId, day, code, clicks } });
  }
  for (const { day, host, clicks } of await prisma.linkDailyReferrer.findMany({ where: { code } })) {
    await prisma.accountDailyReferrer.upsert({
      where: { accountId_day_host: { accountId, day, host } },
      create: { accountId, day, host, clicks },
      update: { clicks: { increment: clicks } },
    });
  }
  for (const { day, label, clicks } of await prisma.linkDailyLabel.findMany({
    where: { code, dimension: 'country' },
  })) {
    await prisma.accountDailyCountry.upsert({
      where: { accountId_day_country: { accountId, day, country: label } },
      create: { accountId, day, country: label, clicks },
      update: { clicks: { increment: clicks } },
    });
  }
}
