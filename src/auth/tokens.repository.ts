import { Injectable } from '@nestjs/common';
import { PreparedReads, preparedRead } from '../database/prepared-reads.js';
import { PrismaService } from '../database/prisma.service.js';

/** What authenticating a request needs of a token that is not revoked, and of its account. */
export interface UsableTokenRecord {
  id: string;
  accountId: string;
  scopes: string;
  /** SQLite answers 0/1, PostgreSQL a boolean. */
  isAdmin: boolean | number;
  accountDisabled: boolean | number;
  emailVerified: boolean | number;
}

/**
 * The account's flags come in the same read (its primary key): no second query per call. On
 * SQLite they are scalar subqueries rather than a join, whose plan SQLite chooses by the tables'
 * statistics: after an ANALYZE while they held a row or two (a new instance) it scanned both
 * tables, 12–20 µs a call against 4–5 for the lookups by key, which this plan always makes.
 */
const USABLE_TOKEN_BY_HASH = preparedRead<UsableTokenRecord>({
  name: 'usable-token-by-hash',
  sqlite: `SELECT t.id, t.account_id AS "accountId", t.scopes,
      (SELECT a.is_admin FROM accounts a WHERE a.id = t.account_id) AS "isAdmin",
      (SELECT a.disabled_at IS NOT NULL FROM accounts a WHERE a.id = t.account_id) AS "accountDisabled",
      (SELECT NOT a.email_unverified FROM accounts a WHERE a.id = t.account_id) AS "emailVerified"
    FROM api_tokens t WHERE t.token_hash = $1 AND t.revoked_at IS NULL`,
  postgresql: `SELECT t.id, t.account_id AS "accountId", t.scopes, a.is_admin AS "isAdmin",
      a.disabled_at IS NOT NULL AS "accountDisabled", NOT a.email_unverified AS "emailVerified"
    FROM api_tokens t JOIN accounts a ON a.id = t.account_id WHERE t.token_hash = $1 AND t.revoked_at IS NULL`,
});

export interface TokenRecord {
  id: string;
  accountId: string;
  name: string;
  prefix: string;
  scopes: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

const TOKEN_FIELDS = {
  id: true,
  accountId: true,
  name: true,
  prefix: true,
  scopes: true,
  createdAt: true,
  lastUsedAt: true,
  revokedAt: true,
} as const;

@Injectable()
export class TokensRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly preparedReads: PreparedReads,
  ) {}

  create(data: {
    accountId: string;
    name: string;
    tokenHash: string;
    prefix: string;
    scopes: string;
  }): Promise<TokenRecord> {
    return this.prisma.apiToken.create({ data, select: TOKEN_FIELDS });
  }

  /** The token with this hash unless it is revoked: the read every authenticated API call makes first. */
  async findUsableByHash(tokenHash: string): Promise<UsableTokenRecord | null> {
    return (await this.preparedReads.first(USABLE_TOKEN_BY_HASH, [tokenHash])) ?? null;
  }

  listForAccount(accountId: string): Promise<TokenRecord[]> {
    return this.prisma.apiToken.findMany({
      where: { accountId },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      select: TOKEN_FIELDS,
    });
  }

  /** Revokes a token once; returns null when no such token exists. */
  async revoke(id: string, at: Date): Promise<TokenRecord | null> {
    await this.prisma.apiToken.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: at } });
    return this.prisma.apiToken.findUnique({ where: { id }, select: TOKEN_FIELDS });
  }

  /** Whether the account is an admin of the instance (false for an unknown one). */
  async isAdmin(accountId: string): Promise<boolean> {
    const account = await this.prisma.account.findUnique({ where: { id: accountId }, select: { isAdmin: true } });
    return account?.isAdmin ?? false;
  }

  async touch(id: string, at: Date): Promise<void> {
    await this.prisma.apiToken.updateMany({ where: { id }, data: { lastUsedAt: at } });
  }
}
