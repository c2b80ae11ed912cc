import { Injectable } from '@nestjs/common';
import { PreparedReads, preparedRead } from '../../database/prepared-reads.js';
import { PrismaService } from '../../database/prisma.service.js';

export interface SessionRecord {
  idHash: string;
  accountId: string;
  lastSeenAt: Date;
}

/** Read on every dashboard request: dates as SQLite's ISO text or PostgreSQL's epoch milliseconds. */
const SESSION_BY_ID_HASH = preparedRead<{ accountId: string; lastSeenAt: string | number }>({
  name: 'session-by-id-hash',
  sqlite: 'SELECT account_id AS "accountId", last_seen_at AS "lastSeenAt" FROM sessions WHERE id_hash = $1',
  postgresql: `SELECT account_id AS "accountId", (extract(epoch FROM last_seen_at) * 1000)::float8 AS "lastSeenAt"
    FROM sessions WHERE id_hash = $1`,
});

@Injectable()
export class SessionsRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly preparedReads: PreparedReads,
  ) {}

  async create(idHash: string, accountId: string, now: Date): Promise<void> {
    await this.prisma.session.create({ data: { idHash, accountId, lastSeenAt: now } });
  }

  async find(idHash: string): Promise<SessionRecord | null> {
    const row = await this.preparedReads.first(SESSION_BY_ID_HASH, [idHash]);
    return row ? { idHash, accountId: row.accountId, lastSeenAt: new Date(row.lastSeenAt) } : null;
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
