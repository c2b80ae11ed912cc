import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service.js';

export interface AccountRecord {
  id: string;
  email: string;
  createdAt: Date;
}

@Injectable()
export class AccountsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Creates the account; null when the e-mail address is taken (also by a concurrent create). */
  async create(email: string): Promise<AccountRecord | null> {
    try {
      return await this.prisma.account.create({ data: { email } });
    } catch (error) {
      if ((error as { code?: string }).code === 'P2002') return null;
      throw error;
    }
  }

  findByEmail(email: string): Promise<AccountRecord | null> {
    return this.prisma.account.findUnique({ where: { email } });
  }
}
