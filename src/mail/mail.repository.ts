import { Injectable } from '@nestjs/common';
import { PrismaService } from '../database/prisma.service.js';

/** An email as it is stored in the outbox, before it is sent. */
export interface OutgoingMail {
  /** What it is (password_reset, verify_email, webhook_disabled, reports): what logs name, never its body. */
  kind: string;
  recipient: string;
  subject: string;
  text: string;
  html: string;
}

/** A message an instance holds for one attempt. */
export interface HeldMail extends OutgoingMail {
  id: string;
  /** Attempts made before this one. */
  attempts: number;
}

/** The outbox's messages waiting to be sent at most, read per claim. */
const CLAIM_CANDIDATES = 8;

/**
 * The mail outbox (`mail_messages`) and the digests' last sendings (`mail_digests`). Claims are
 * compare-and-set updates on one row, which both databases make atomic: however many instances
 * share the database, one attempt per message is under way at a time.
 */
@Injectable()
export class MailRepository {
  constructor(private readonly prisma: PrismaService) {}

  async add(messages: OutgoingMail[]): Promise<void> {
    if (messages.length > 0) await this.prisma.mailMessage.createMany({ data: messages });
  }

  /**
   * Due messages, oldest due first, each held by this instance until `until` (no other instance
   * takes it meanwhile; one that dies mid-attempt leaves it to be taken once that passes).
   */
  async claim(now: Date, until: Date): Promise<HeldMail[]> {
    const candidates = await this.prisma.mailMessage.findMany({
      where: {
        status: 'pending',
        nextAttemptAt: { lte: now },
        OR: [{ claimedUntil: null }, { claimedUntil: { lt: now } }],
      },
      orderBy: [{ nextAttemptAt: 'asc' }, { id: 'asc' }],
      take: CLAIM_CANDIDATES,
      select: { id: true, claimedUntil: true },
    });
    const held: HeldMail[] = [];
    for (const candidate of candidates) {
      // Taken only if no other instance took it since it was read.
      const taken = await this.prisma.mailMessage.updateMany({
        where: { id: candidate.id, status: 'pending', claimedUntil: candidate.claimedUntil },
        data: { claimedUntil: until },
      });
      if (taken.count === 0) continue;
      const message = await this.prisma.mailMessage.findUnique({
        where: { id: candidate.id },
        select: { id: true, kind: true, recipient: true, subject: true, text: true, html: true, attempts: true },
      });
      if (message) held.push(message);
    }
    return held;
  }

  /** Sent: the body (which may hold a single-use link) is emptied. */
  async sent(id: string, at: Date): Promise<void> {
    await this.prisma.mailMessage.update({
      where: { id },
      data: {
        status: 'sent',
        sentAt: at,
        attempts: { increment: 1 },
        claimedUntil: null,
        text: '',
        html: '',
        lastError: null,
      },
    });
  }

  /** Not sent: tried again at `retryAt`, or given up (body emptied) when it is null. */
  async failed(id: string, error: string, retryAt: Date | null): Promise<void> {
    await this.prisma.mailMessage.update({
      where: { id },
      data:
        retryAt === null
          ? { status: 'failed', attempts: { increment: 1 }, claimedUntil: null, lastError: error, text: '', html: '' }
          : { attempts: { increment: 1 }, claimedUntil: null, lastError: error, nextAttemptAt: retryAt },
    });
  }

  /** Ends this instance's hold on messages it did not attempt after all (at shutdown). */
  async release(ids: string[]): Promise<void> {
    if (ids.length > 0)
      await this.prisma.mailMessage.updateMany({ where: { id: { in: ids } }, data: { claimedUntil: null } });
  }

  /** Deletes sent and failed messages created before `before`. */
  async prune(before: Date): Promise<number> {
    const { count } = await this.prisma.mailMessage.deleteMany({
      where: { status: { in: ['sent', 'failed'] }, createdAt: { lt: before } },
    });
    return count;
  }

  /**
   * A digest's turn: when it was last sent, if `kind` is due (never sent, or last sent at or
   * before `dueIfSentBy`), moving its mark to `now` and storing `build(lastSentAt, now)`'s messages in
   * the same transaction. Only one instance wins a turn; a crash loses neither the mark nor the
   * messages alone. `first`: where a digest never sent starts counting from.
   */
  async takeDigestTurn(
    kind: string,
    now: Date,
    dueIfSentBy: Date,
    first: Date,
    build: (since: Date, until: Date) => Promise<OutgoingMail[]>,
  ): Promise<number> {
    const mark = await this.prisma.mailDigest.findUnique({ where: { kind } });
    if (!mark) {
      // The first turn on this database only sets the mark: nothing from before is sent.
      await this.prisma.mailDigest.createMany({ data: [{ kind, sentAt: first }] }).catch(() => undefined);
      return 0;
    }
    if (mark.sentAt > dueIfSentBy) return 0;
    const messages = await build(mark.sentAt, now);
    if (messages.length === 0) return 0;
    return this.prisma.$transaction(async (tx) => {
      const moved = await tx.mailDigest.updateMany({ where: { kind, sentAt: mark.sentAt }, data: { sentAt: now } });
      if (moved.count === 0) return 0;
      await tx.mailMessage.createMany({ data: messages });
      return messages.length;
    });
  }
}
