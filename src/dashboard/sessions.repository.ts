import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service.js';

export interface SessionRecord {
  idHash: string;
  accountId: string;
  lastSeenAt: Date;
}

@Injectable()
export class SessionsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async create(idHash: string, accountId: string, now: Date): Promise<void> {
    await this.prisma.session.create({ data: { idHash, accountId, lastSeenAt: now } });
  }

  find(idHash: string): Promise<SessionRecord | null> {
    return this.prisma.session.findUnique({ where: { idHash } });
  }

  async touch(idHash: string, now: Date): Promise<void> {
    await this.prisma.session.updateMany({ where: { idHash }, data: { lastSeenAt: now } });
  }

  async delete(idHash: string): Promise<void> {
    await this.prisma.session.deleteMany({ where: { idHash } });
  }

  async deleteForAccount(accountId: string): Promise<void> {
    await this.prisma.session.deleteMany({ where: { accountId } });
  }

  /** Drops sessions idle since before `cutoff` (they are refused anyway; this keeps the table small). */
  async deleteIdleSince(cutoff: Date): Promise<void> {
    await this.prisma.session.deleteMany({ where: { lastSeenAt: { lt: cutoff } } });
  }
}
