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

  create(email: string): Promise<AccountRecord> {
    return this.prisma.account.create({ data: { email } });
  }

  findByEmail(email: string): Promise<AccountRecord | null> {
    return this.prisma.account.findUnique({ where: { email } });
  }
}
