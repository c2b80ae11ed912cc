import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service.js';

export interface AccountRecord {
  id: string;
  email: string;
  passwordHash: string | null;
  createdAt: Date;
}

@Injectable()
export class AccountsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Creates the account; null when the e-mail address is taken (also by a concurrent create). */
  async create(email: string, passwordHash: string | null = null): Promise<AccountRecord | null> {
    try {
      return await this.prisma.account.create({ data: { email, passwordHash } });
    } catch (error) {
      if ((error as { code?: string }).code === 'P2002') return null;
      throw error;
    }
  }

  findByEmail(email: string): Promise<AccountRecord | null> {
    return this.prisma.account.findUnique({ where: { email } });
  }

  findById(id: string): Promise<AccountRecord | null> {
    return this.prisma.account.findUnique({ where: { id } });
  }

  /** Sets the password and ends every session but `keepSessionHash` (in one transaction). */
  async setPassword(id: string, passwordHash: string, keepSessionHash?: string): Promise<boolean> {
    const [updated] = await this.prisma.$transaction([
      this.prisma.account.updateMany({ where: { id }, data: { passwordHash } }),
      this.prisma.session.deleteMany({
        where: { accountId: id, ...(keepSessionHash ? { NOT: { idHash: keepSessionHash } } : {}) },
      }),
    ]);
    return updated.count > 0;
  }

  /** Deletes the account; its links, tokens and sessions go with it (ON DELETE CASCADE). */
  async delete(id: string): Promise<boolean> {
    return (await this.prisma.account.deleteMany({ where: { id } })).count > 0;
  }
}
