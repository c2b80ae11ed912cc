import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service.js';

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
  constructor(private readonly prisma: PrismaService) {}

  create(data: {
    accountId: string;
    name: string;
    tokenHash: string;
    prefix: string;
    scopes: string;
  }): Promise<TokenRecord> {
    return this.prisma.apiToken.create({ data, select: TOKEN_FIELDS });
  }

  findByHash(tokenHash: string): Promise<TokenRecord | null> {
    return this.prisma.apiToken.findUnique({ where: { tokenHash }, select: TOKEN_FIELDS });
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
