import { Injectable } from '@nestjs/common';
import { DirectReads, type DirectRead } from '../../database/direct-reads.js';
import { PrismaService } from '../../database/prisma.service.js';

export interface SessionRecord {
  idHash: string;
  accountId: string;
  lastSeenAt: Date;
}

/** Read on every dashboard request: dates as SQLite's ISO text or PostgreSQL's epoch milliseconds. */
const SESSION_BY_ID_HASH: DirectRead = {
  name: 'session-by-id-hash',
  sqlite: 'SELECT account_id, last_seen_at FROM sessions WHERE id_hash = $1',
  postgresql: 'SELECT account_id, (extract(epoch FROM last_seen_at) * 1000)::float8 FROM sessions WHERE id_hash = $1',
};

@Injectable()
export class SessionsRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly directReads: DirectReads,
  ) {}

  async create(idHash: string, accountId: string, now: Date): Promise<void> {
    await this.prisma.session.create({ data: { idHash, accountId, lastSeenAt: now } });
  }

  async find(idHash: string): Promise<SessionRecord | null> {
    const row = await this.directReads.firstRow<[string, string | number]>(SESSION_BY_ID_HASH, [idHash]);
    return row ? { idHash, accountId: row[0], lastSeenAt: new Date(row[1]) } : null;
  }

  async touch(idHash: string, now: Date): Promise<void> {
    await this.prisma.session.updateMany({ where: { idHash }, data: { lastSeenAt: now } });
  }

  async delete(idHash: string): Promise<void> {
    await this.prisma.session.deleteMany({ where: { idHash } });
  }

  async deleteForAccount(accountId: string, keepIdHash?: string): Promise<void> {
    await this.prisma.session.deleteMany({
      where: { accountId, ...(keepIdHash ? { NOT: { idHash: keepIdHash } } : {}) },
    });
  }

  /** Drops sessions idle since before `cutoff` (they are refused anyway; this keeps the table small). */
  async deleteIdleSince(cutoff: Date): Promise<void> {
    await this.prisma.session.deleteMany({ where: { lastSeenAt: { lt: cutoff } } });
  }
}
