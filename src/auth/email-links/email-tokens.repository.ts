import { createHash, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { PrismaService } from '../../database/prisma.service.js';

/** What a link sent by email is for. */
export type EmailTokenPurpose = 'password_reset' | 'verify_email';

/** A token as it appears in a link: 256 random bits, base64url (43 characters). */
const TOKEN_FORMAT = /^[A-Za-z0-9_-]{43}$/;

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * Single-use tokens of the links sent by email (`email_tokens`). Only their SHA-256 is stored: a
 * copy of the database opens no link. Using one is a compare-and-set (`used_at` still null, not
 * expired), so a link works once even when two instances are asked at the same moment.
 */
@Injectable()
export class EmailTokensRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** A new token for the account, valid `ttlMs`; the raw value goes into the email only. */
  async issue(accountId: string, purpose: EmailTokenPurpose, ttlMs: number): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const now = new Date();
    await this.prisma.emailToken.create({
      data: {
        tokenHash: hashToken(token),
        accountId,
        purpose,
        createdAt: now,
        expiresAt: new Date(now.getTime() + ttlMs),
      },
    });
    return token;
  }

  /** The account whose unused, unexpired token this is, or null (without using it). */
  async peek(token: string, purpose: EmailTokenPurpose): Promise<string | null> {
    if (!TOKEN_FORMAT.test(token)) return null;
    const row = await this.prisma.emailToken.findFirst({
      where: { tokenHash: hashToken(token), purpose, usedAt: null, expiresAt: { gt: new Date() } },
      select: { accountId: true },
    });
    return row?.accountId ?? null;
  }

  /**
   * Uses the token: the account it was for, or null when it is unknown, expired or used already.
   * Its account's other unused tokens of the same purpose are used up with it (the latest email's
   * link is not the only one that must stop working once a password is set).
   */
  async use(token: string, purpose: EmailTokenPurpose): Promise<string | null> {
    const accountId = await this.peek(token, purpose);
    if (accountId === null) return null;
    const now = new Date();
    const taken = await this.prisma.emailToken.updateMany({
      where: { tokenHash: hashToken(token), purpose, usedAt: null, expiresAt: { gt: now } },
      data: { usedAt: now },
    });
    if (taken.count === 0) return null;
    await this.prisma.emailToken.updateMany({ where: { accountId, purpose, usedAt: null }, data: { usedAt: now } });
    return accountId;
  }

  /** Deletes tokens expired before `before` (used or not). */
  async prune(before: Date): Promise<void> {
    await this.prisma.emailToken.deleteMany({ where: { expiresAt: { lt: before } } });
  }
}
