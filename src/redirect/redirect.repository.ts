import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service.js';

@Injectable()
export class RedirectRepository {
  constructor(private readonly prisma: PrismaService) {}

  async findTarget(code: string): Promise<string | null> {
    const link = await this.prisma.link.findUnique({ where: { code }, select: { url: true } });
    return link?.url ?? null;
  }

  /**
   * Adds buffered click counts in one transaction. Raw SQL on purpose: Prisma's update would
   * also move `updated_at`, which tells when the target changed, not when it was visited.
   * Codes deleted in the meantime simply match no row.
   */
  async addClicks(counts: ReadonlyArray<readonly [code: string, clicks: number]>): Promise<void> {
    await this.prisma.$transaction(
      counts.map(
        ([code, clicks]) => this.prisma.$executeRaw`UPDATE "links" SET "clicks" = "clicks" + ${clicks} WHERE "code" = ${code}`,
      ),
    );
  }
}
