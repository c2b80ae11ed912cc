import { PrismaService } from '../../src/database/prisma.service.js';

/**
 * Sums a link's daily referrer and label rows, written straight into the tables by a spec, into
 * their monthly rows, as the click flush writes both: windows of many days read full months
 * from the monthly tables.
 */
export async function sumMonths(prisma: PrismaService, code: string): Promise<void> {
  await prisma.$executeRaw`INSERT INTO link_monthly_referrers (code, month, host, clicks)
    SELECT code, substr(day, 1, 7), host, sum(clicks) FROM link_daily_referrers WHERE code = ${code}
    GROUP BY 1, 2, 3`;
  await prisma.$executeRaw`INSERT INTO link_monthly_labels (code, month, dimension, label, clicks)
    SELECT code, substr(day, 1, 7), dimension, label, sum(clicks) FROM link_daily_labels WHERE code = ${code}
    GROUP BY 1, 2, 3, 4`;
}
