import { Injectable } from '@nestjs/common';
import { PrismaService } from '../../database/prisma.service.js';

export interface ChallengeRecord {
  purpose: string;
  accountId: string | null;
  data: string;
  expiresAt: Date;
}

@Injectable()
export class SignInChallengesRepository {
  constructor(private readonly prisma: PrismaService) {}

  async create(idHash: string, record: ChallengeRecord): Promise<void> {
    await this.prisma.signInChallenge.create({ data: { idHash, ...record } });
  }

  find(idHash: string): Promise<ChallengeRecord | null> {
    return this.prisma.signInChallenge.findUnique({
      where: { idHash },
      select: { purpose: true, accountId: true, data: true, expiresAt: true },
    });
  }

  /** Deletes the row; false when it was gone already (used by another request first). */
  async delete(idHash: string): Promise<boolean> {
    return (await this.prisma.signInChallenge.deleteMany({ where: { idHash } })).count > 0;
  }

  async deleteExpired(now: Date): Promise<void> {
    await this.prisma.signInChallenge.deleteMany({ where: { expiresAt: { lte: now } } });
  }
}
