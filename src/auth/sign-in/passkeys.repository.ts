import { Injectable } from '@nestjs/common';
import { PrismaService } from '../../database/prisma.service.js';

export interface PasskeyRecord {
  id: string;
  accountId: string;
  name: string;
  publicKey: string;
  counter: number;
  transports: string;
  createdAt: Date;
  lastUsedAt: Date | null;
}

@Injectable()
export class PasskeysRepository {
  constructor(private readonly prisma: PrismaService) {}

  listForAccount(accountId: string): Promise<PasskeyRecord[]> {
    return this.prisma.passkey.findMany({ where: { accountId }, orderBy: { createdAt: 'asc' } });
  }

  findById(id: string): Promise<PasskeyRecord | null> {
    return this.prisma.passkey.findUnique({ where: { id } });
  }

  countForAccount(accountId: string): Promise<number> {
    return this.prisma.passkey.count({ where: { accountId } });
  }

  /** Adds the credential; false when its id is registered already (to any account). */
  async create(record: Omit<PasskeyRecord, 'createdAt' | 'lastUsedAt'>): Promise<boolean> {
    try {
      await this.prisma.passkey.create({ data: record });
      return true;
    } catch (error) {
      if ((error as { code?: string }).code === 'P2002') return false;
      throw error;
    }
  }

  async recordUse(id: string, counter: number): Promise<void> {
    await this.prisma.passkey.updateMany({ where: { id }, data: { counter, lastUsedAt: new Date() } });
  }

  /** Removes one of the account's passkeys; false when it has none with that id. */
  async delete(accountId: string, id: string): Promise<boolean> {
    return (await this.prisma.passkey.deleteMany({ where: { id, accountId } })).count > 0;
  }
}
