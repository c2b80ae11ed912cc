import { Injectable } from '@nestjs/common';
import { PreparedReads, preparedRead } from '../../database/prepared-reads.js';
import { PrismaService } from '../../database/prisma.service.js';

export interface SessionRecord {
  idHash: string;
  accountId: string;
  lastSeenAt: Date;
  /** The account is an admin of the instance. */
  isAdmin: boolean;
  /** The account was disabled: its sessions are over. */
  accountDisabled: boolean;
  /** The account's email is proved (or taken as given): see Account.emailUnverified. */
  emailVerified: boolean;
}

/**
 * Read on every dashboard request, with what the page needs of its account (admin, disabled) in
 * the same read: dates as SQLite's ISO text or PostgreSQL's epoch milliseconds, flags as SQLite's
 * 0/1 or PostgreSQL's booleans.
 */
const SESSION_BY_ID_HASH = preparedRead<{
  accountId: string;
  lastSeenAt: string | number;
  isAdmin: boolean | number;
  accountDisabled: boolean | number;
  emailVerified: boolean | number;
}>({
  name: 'session-by-id-hash',
  // Scalar subqueries on SQLite, not a join: a plan that does not depend on the tables'
  // statistics (see USABLE_TOKEN_BY_HASH in tokens.repository.ts).
  sqlite: `SELECT s.account_id AS "accountId", s.last_seen_at AS "lastSeenAt",
      (SELECT a.is_admin FROM accounts a WHERE a.id = s.account_id) AS "isAdmin",
      (SELECT a.disabled_at IS NOT NULL FROM accounts a WHERE a.id = s.account_id) AS "accountDisabled",
      (SELECT NOT a.email_unverified FROM accounts a WHERE a.id = s.account_id) AS "emailVerified"
    FROM sessions s WHERE s.id_hash = $1`,
  postgresql: `SELECT s.account_id AS "accountId", (extract(epoch FROM s.last_seen_at) * 1000)::float8 AS "lastSeenAt",
    a.is_admin AS "isAdmin", a.disabled_at IS NOT NULL AS "accountDisabled",
    NOT a.email_unverified AS "emailVerified"
    FROM sessions s JOIN accounts a ON a.id = s.account_id WHERE s.id_hash = $1`,
});

@Injectable()
export class SessionsRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly preparedReads: PreparedReads,
  ) {}

  /** A session that has just signed in: its sign-in is its latest proof of a factor. */
  async create(idHash: string, accountId: string, now: Date): Promise<void> {
    await this.prisma.session.create({ data: { idHash, accountId, lastSeenAt: now, authenticatedAt: now } });
  }

  /** When the session last proved a sign-in factor (null: never recorded, or no such session). */
  async findAuthenticatedAt(idHash: string): Promise<Date | null> {
    const session = await this.prisma.session.findUnique({ where: { idHash }, select: { authenticatedAt: true } });
    return session?.authenticatedAt ?? null;
  }

  async recordAuthentication(idHash: string, now: Date): Promise<void> {
    await this.prisma.session.updateMany({ where: { idHash }, data: { authenticatedAt: now } });
  }

  async find(idHash: string): Promise<SessionRecord | null> {
    const row = await this.preparedReads.first(SESSION_BY_ID_HASH, [idHash]);
    return row
      ? {
          idHash,
          accountId: row.accountId,
          lastSeenAt: new Date(row.lastSeenAt),
          isAdmin: Boolean(row.isAdmin),
          accountDisabled: Boolean(row.accountDisabled),
          emailVerified: Boolean(row.emailVerified),
        }
      : null;
  }

  /** Whether the account was disabled by an admin (false for an unknown one). */
  async isAccountDisabled(accountId: string): Promise<boolean> {
    const account = await this.prisma.account.findUnique({ where: { id: accountId }, select: { disabledAt: true } });
    return Boolean(account?.disabledAt);
  }

  async touch(idHash: string, now: Date): Promise<void> {
    await this.prisma.session.updateMany({ where: { idHash }, data: { lastSeenAt: now } });
  }

  async delete(idHash: string): Promise<void> {
    await this.prisma.session.deleteMany({ where: { idHash } });
  }

  /**
   * Deletes the account's sessions (all but `keepIdHash`) and its sign-ins in progress (a
   * password proved and waiting for its code, a passkey being added): each is a way in.
   */
  async deleteForAccount(accountId: string, keepIdHash?: string): Promise<void> {
    await this.prisma.$transaction([
      this.prisma.session.deleteMany({
        where: { accountId, ...(keepIdHash ? { NOT: { idHash: keepIdHash } } : {}) },
      }),
      this.prisma.signInChallenge.deleteMany({ where: { accountId } }),
    ]);
  }

  /** Drops sessions idle since before `cutoff` (they are refused anyway; this keeps the table small). */
  async deleteIdleSince(cutoff: Date): Promise<void> {
    await this.prisma.session.deleteMany({ where: { lastSeenAt: { lt: cutoff } } });
  }
}
