import { Injectable } from '@nestjs/common';
import { PreparedReads, preparedRead } from '../database/prepared-reads.js';
import { PrismaService } from '../database/prisma.service.js';

/** What authenticating a request needs of a token that is not revoked. */
export interface UsableTokenRecord {
  id: string;
  accountId: string;
  scopes: string;
}

const USABLE_TOKEN_SQL =
  'SELECT id, account_id AS "accountId", scopes FROM api_tokens WHERE token_hash = $1 AND revoked_at IS NULL';
const USABLE_TOKEN_BY_HASH = preparedRead<UsableTokenRecord>({
  name: 'usable-token-by-hash',
  sqlite: USABLE_TOKEN_SQL,
  postgresql: USABLE_TOKEN_SQL,
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

  async touch(id: string, at: Date): Promise<void> {
    await this.prisma.apiToken.updateMany({ where: { id }, data: { lastUsedAt: at } });
  }
}
