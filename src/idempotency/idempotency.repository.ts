import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service.js';

/** A stored first call (see IdempotencyRecord in the Prisma schema). */
export interface IdempotencyRecord {
  accountId: string;
  key: string;
  requestHash: string;
  status: number | null;
  response: string | null;
  location: string | null;
  createdAt: Date;
  expiresAt: Date;
}

/** Prisma's error code for a unique constraint violation. */
const UNIQUE_VIOLATION = 'P2002';

/**
 * Idempotency records in the database, so that any instance answers a retry. The primary key
 * (account, key) decides races: of two first calls with one key, exactly one inserts.
 */
@Injectable()
export class IdempotencyRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Inserts an in-progress record; false when the account already has one for this key. */
  async claim(accountId: string, key: string, requestHash: string, now: Date, expiresAt: Date): Promise<boolean> {
    try {
      await this.prisma.idempotencyRecord.create({
        data: { accountId, key, requestHash, createdAt: now, expiresAt },
      });
      return true;
    } catch (error) {
      if ((error as { code?: unknown }).code === UNIQUE_VIOLATION) return false;
      throw error;
    }
  }

  find(accountId: string, key: string): Promise<IdempotencyRecord | null> {
    return this.prisma.idempotencyRecord.findUnique({ where: { accountId_key: { accountId, key } } });
  }

  /**
   * Takes over a record whose first call never finished (its instance died) and started before
   * `startedBefore`; false if another retry took it first or it has finished meanwhile.
   */
  async takeOver(accountId: string, key: string, startedBefore: Date, now: Date): Promise<boolean> {
    const { count } = await this.prisma.idempotencyRecord.updateMany({
      where: { accountId, key, status: null, createdAt: { lt: startedBefore } },
      data: { createdAt: now },
    });
    return count === 1;
  }

  /** Stores the first call's answer, which retries then get. */
  async complete(accountId: string, key: string, answer: { status: number; response: string; location: string | null }) {
    await this.prisma.idempotencyRecord.update({ where: { accountId_key: { accountId, key } }, data: answer });
  }

  /** Forgets a first call that failed for reasons of our own (a retry may then succeed). */
  async release(accountId: string, key: string): Promise<void> {
    await this.prisma.idempotencyRecord.deleteMany({ where: { accountId, key, status: null } });
  }

  /** Deletes a record past its expiry, so the key can start afresh. */
  async deleteIfExpired(accountId: string, key: string, now: Date): Promise<void> {
    await this.prisma.idempotencyRecord.deleteMany({ where: { accountId, key, expiresAt: { lte: now } } });
  }

  /** Deletes every expired record; returns how many. */
  async deleteExpired(now: Date): Promise<number> {
    const { count } = await this.prisma.idempotencyRecord.deleteMany({ where: { expiresAt: { lte: now } } });
    return count;
  }
}
