import { Injectable } from '@nestjs/common';
import { PostgresDriver } from '../database/postgres-driver.js';
import { PrismaService } from '../database/prisma.service.js';
import { SqliteReader } from '../database/sqlite-reader.js';

/** What authenticating a request needs of a token that is not revoked. */
export interface UsableTokenRecord {
  id: string;
  accountId: string;
  scopes: string;
}

// Completed by each database's placeholder for the hash.
const SELECT_USABLE_TOKEN_WHERE_HASH = 'SELECT id, account_id, scopes FROM api_tokens WHERE revoked_at IS NULL AND token_hash =';

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
    private readonly postgres: PostgresDriver,
    private readonly sqliteReader: SqliteReader,
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

  /**
   * The token with this hash unless it is revoked: the read every authenticated API call makes
   * first. It bypasses Prisma (a kept statement on the read-only SQLite handle, a named prepared
   * statement on PostgreSQL), whose query interpretation cost more than the whole rest of a
   * list call's database work. Each read sees the latest commit, so a revocation holds for the
   * very next call on every instance.
   */
  async findUsableByHash(tokenHash: string): Promise<UsableTokenRecord | null> {
    let row: [string, string, string] | undefined;
    if (this.postgres.prismaPool) {
      const { rows } = await this.postgres.prismaPool.query<[string, string, string]>({
        name: 'usable-token',
        text: `${SELECT_USABLE_TOKEN_WHERE_HASH} $1`,
        values: [tokenHash],
        rowMode: 'array',
      });
      row = rows[0];
    } else {
      [row] = this.sqliteReader.rows<[string, string, string]>(`${SELECT_USABLE_TOKEN_WHERE_HASH} ?`, [tokenHash]);
    }
    return row ? { id: row[0], accountId: row[1], scopes: row[2] } : null;
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

  async touch(id: string, at: Date): Promise<void> {
    await this.prisma.apiToken.updateMany({ where: { id }, data: { lastUsedAt: at } });
  }
}
