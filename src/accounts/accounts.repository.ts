import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service.js';

export interface AccountRecord {
  id: string;
  email: string;
  passwordHash: string | null;
  /** When the password was last set; null without one, or when it was set before this was kept. */
  passwordSetAt: Date | null;
  createdAt: Date;
  isAdmin: boolean;
  disabledAt: Date | null;
  disabledReason: string | null;
  /** A SIGNUP=verify sign-up still waiting for the link sent to its email (else its address is taken as given). */
  emailUnverified: boolean;
  /** How many links it has (kept by triggers). */
  linkCount: number;
}

/**
 * Account ids are UUIDs (`@default(uuid())`): anything else, as a URL may carry, names no account
 * and is never sent to the database (PostgreSQL refuses a NUL in text).
 */
const ACCOUNT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isAccountId(id: string): boolean {
  return ACCOUNT_ID.test(id);
}

/** Control characters: never in an address, and PostgreSQL refuses a NUL. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/;

@Injectable()
export class AccountsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Creates the account; null when the e-mail address is taken (also by a concurrent create). */
  /** `emailVerified`: false only for a sign-up that must prove its address (SIGNUP=verify). */
  async create(
    email: string,
    passwordHash: string | null = null,
    isAdmin = false,
    emailVerified = true,
  ): Promise<AccountRecord | null> {
    try {
      const now = new Date();
      const passwordSetAt = passwordHash === null ? null : now;
      return await this.prisma.account.create({
        data: { email, passwordHash, passwordSetAt, isAdmin, emailUnverified: !emailVerified },
      });
    } catch (error) {
      if ((error as { code?: string }).code === 'P2002') return null;
      throw error;
    }
  }

  findByEmail(email: string): Promise<AccountRecord | null> {
    return this.prisma.account.findUnique({ where: { email } });
  }

  async findById(id: string): Promise<AccountRecord | null> {
    return isAccountId(id) ? this.prisma.account.findUnique({ where: { id } }) : null;
  }

  /** Marks the account's email proved (its link was opened); false when it is gone or was proved. */
  async markEmailVerified(id: string): Promise<boolean> {
    const updated = await this.prisma.account.updateMany({
      where: { id, emailUnverified: true },
      data: { emailUnverified: false },
    });
    return updated.count > 0;
  }

  async setPassword(id: string, passwordHash: string): Promise<boolean> {
    const updated = await this.prisma.account.updateMany({
      where: { id },
      data: { passwordHash, passwordSetAt: new Date() },
    });
    return updated.count > 0;
  }

  /** Every account's id and address, a thousand at a time in id order (for the email check). */
  async *emailsInBatches(): AsyncGenerator<{ id: string; email: string }[]> {
    let after: string | undefined;
    for (;;) {
      const batch = await this.prisma.account.findMany({
        where: after === undefined ? {} : { id: { gt: after } },
        select: { id: true, email: true },
        orderBy: { id: 'asc' },
        take: 1000,
      });
      if (batch.length === 0) return;
      yield batch;
      after = batch[batch.length - 1].id;
    }
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

  // ---- the instance's administration ------------------------------------------------------

  /** One page of the accounts, newest first; with `search`, those whose address contains it. */
  async listForAdmin(
    limit: number,
    offset: number,
    search?: string,
  ): Promise<{ accounts: AccountRecord[]; total: number }> {
    if (search !== undefined && CONTROL.test(search)) return { accounts: [], total: 0 };
    // Addresses are stored in lower case.
    const where = search ? { email: { contains: search.toLowerCase() } } : {};
    const [accounts, total] = await Promise.all([
      this.prisma.account.findMany({
        where,
        orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
        take: limit,
        skip: offset,
      }),
      this.prisma.account.count({ where }),
    ]);
    return { accounts, total };
  }

  /** How many enabled admins the instance has. */
  countActiveAdmins(): Promise<number> {
    return this.prisma.account.count({ where: { isAdmin: true, disabledAt: null } });
  }

  async setAdmin(id: string, isAdmin: boolean): Promise<boolean> {
    if (!isAccountId(id)) return false;
    return (await this.prisma.account.updateMany({ where: { id }, data: { isAdmin } })).count > 0;
  }

  /** Disables the account (a disabled one keeps its first time and reason); false for an unknown one. */
  async disable(id: string, reason: string | null, at: Date): Promise<boolean> {
    if (!isAccountId(id)) return false;
    await this.prisma.account.updateMany({
      where: { id, disabledAt: null },
      data: { disabledAt: at, disabledReason: reason },
    });
    return (await this.prisma.account.count({ where: { id } })) > 0;
  }

  async enable(id: string): Promise<boolean> {
    if (!isAccountId(id)) return false;
    const updated = await this.prisma.account.updateMany({
      where: { id },
      data: { disabledAt: null, disabledReason: null },
    });
    return updated.count > 0;
  }

  /** Deletes the account; its links, tokens and sessions go with it (ON DELETE CASCADE). */
  async delete(id: string): Promise<boolean> {
    if (!isAccountId(id)) return false;
    return (await this.prisma.account.deleteMany({ where: { id } })).count > 0;
  }
}
