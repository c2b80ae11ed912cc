import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service.js';

export interface BlockedHostRecord {
  host: string;
  createdAt: Date;
  createdBy: string;
}

@Injectable()
export class BlockedHostsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Every blocked host, in name order. */
  list(): Promise<BlockedHostRecord[]> {
    return this.prisma.blockedHost.findMany({ orderBy: { host: 'asc' } });
  }

  async hosts(): Promise<string[]> {
    return (await this.prisma.blockedHost.findMany({ select: { host: true } })).map((row) => row.host);
  }

  find(host: string): Promise<BlockedHostRecord | null> {
    return this.prisma.blockedHost.findUnique({ where: { host } });
  }

  /** Blocks the host; null when it was blocked already (also by a concurrent call). */
  async add(host: string, createdBy: string): Promise<BlockedHostRecord | null> {
    try {
      return await this.prisma.blockedHost.create({ data: { host, createdBy } });
    } catch (error) {
      if ((error as { code?: string }).code === 'P2002') return null;
      throw error;
    }
  }

  /** False when the host was not blocked. */
  async remove(host: string): Promise<boolean> {
    return (await this.prisma.blockedHost.deleteMany({ where: { host } })).count > 0;
  }
}
