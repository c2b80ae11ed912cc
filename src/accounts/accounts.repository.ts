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

  async setPassword(id: string, passwordHash: string): Promise<boolean> {
    const updated = await this.prisma.account.updateMany({ where: { id }, data: { passwordHash } });
    return updated.count > 0;
  }

  /** The account's two-factor state, or null for an unknown account. */
  findTwoFactor(
    id: string,
  ): Promise<{ totpSecret: string | null; totpEnabledAt: Date | null; totpLastStep: number | null } | null> {
    return this.prisma.account.findUnique({
      where: { id },
      select: { totpSecret: true, totpEnabledAt: true, totpLastStep: true },
    });
  }

  /** Turns TOTP on with `secret`, its first accepted step and new recovery codes (replacing any). */
  async enableTotp(id: string, secret: string, step: number, recoveryCodeHashes: string[]): Promise<void> {
    await this.prisma.$transaction([
      this.prisma.account.update({
        where: { id },
        data: { totpSecret: secret, totpEnabledAt: new Date(), totpLastStep: step },
      }),
      this.prisma.recoveryCode.deleteMany({ where: { accountId: id } }),
      this.prisma.recoveryCode.createMany({
        data: recoveryCodeHashes.map((codeHash) => ({ accountId: id, codeHash })),
      }),
    ]);
  }

  /**
   * Records `step` as the last accepted TOTP step if it is newer than the one stored: false when
   * another request (a replay, on any instance) took this step or a later one first.
   */
  async acceptTotpStep(id: string, step: number): Promise<boolean> {
    const updated = await this.prisma.account.updateMany({
      where: { id, totpEnabledAt: { not: null }, OR: [{ totpLastStep: null }, { totpLastStep: { lt: step } }] },
      data: { totpLastStep: step },
    });
    return updated.count > 0;
  }

  /** Marks an unused recovery code used; false when there is none (unknown, or used before). */
  async useRecoveryCode(id: string, codeHash: string): Promise<boolean> {
    const updated = await this.prisma.recoveryCode.updateMany({
      where: { accountId: id, codeHash, usedAt: null },
      data: { usedAt: new Date() },
    });
    return updated.count > 0;
  }

  countUnusedRecoveryCodes(id: string): Promise<number> {
    return this.prisma.recoveryCode.count({ where: { accountId: id, usedAt: null } });
  }

  /** Turns TOTP off and deletes the recovery codes; false for an unknown account. */
  async disableTotp(id: string): Promise<boolean> {
    const [updated] = await this.prisma.$transaction([
      this.prisma.account.updateMany({
        where: { id },
        data: { totpSecret: null, totpEnabledAt: null, totpLastStep: null },
      }),
      this.prisma.recoveryCode.deleteMany({ where: { accountId: id } }),
    ]);
    return updated.count > 0;
  }

  /** Deletes the account; its links, tokens and sessions go with it (ON DELETE CASCADE). */
  async delete(id: string): Promise<boolean> {
    return (await this.prisma.account.deleteMany({ where: { id } })).count > 0;
  }
}
