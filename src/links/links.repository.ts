import { Injectable } from '@nestjs/common';
import { LoggedClicks } from '../clicks/logged-clicks.js';
import { PrismaService } from '../database/prisma.service.js';
import type { OutboxEvent } from '../webhooks/outbox/outbox-messages.js';
import { OutboxSignal } from '../webhooks/outbox/outbox-signal.js';
import { WebhookOutbox } from '../webhooks/outbox/webhook-outbox.js';
import { LinkStore, type MessagesOf, type NewLink, type StoredLink } from './store/link-store.js';

export type { NewLink } from './store/link-store.js';

export interface LinkRecord {
  code: string;
  url: string;
  accountId: string | null;
  /** All of the link's clicks counted so far (see `withLoggedClicks`). */
  clicks: number;
  createdAt: Date;
  updatedAt: Date;
  /** After this instant redirects answer 410; null: never. */
  expiresAt: Date | null;
  /** While set, the link is disabled: redirects answer 410 with a page saying so. */
  disabledAt: Date | null;
  /** Lower case, sorted. */
  tags: string[];
  /** Whether it has a password (the hash never leaves the repository but for the redirect's lookup). */
  passwordProtected: boolean;
  /** Device targets; null: those devices go to `url`. */
  iosUrl: string | null;
  androidUrl: string | null;
}

/** What `updateForAccount` may change (undefined: unchanged; null removes an expiry, password or device target). */
export interface LinkChanges {
  url?: string;
  expiresAt?: Date | null;
  tags?: string[];
  passwordHash?: string | null;
  iosUrl?: string | null;
  androidUrl?: string | null;
}

/** What Prisma reads of a link's tags: sorted, as the stores read them. */
export const WITH_TAGS = { tags: { select: { tag: true }, orderBy: { tag: 'asc' } } } as const;

/** A link as Prisma reads it `WITH_TAGS`, as the stores give it (its password's hash left behind). */
export function fromPrisma(
  link: Omit<StoredLink, 'tags' | 'passwordProtected'> & { passwordHash: string | null; tags: Array<{ tag: string }> },
): StoredLink {
  return {
    code: link.code,
    url: link.url,
    accountId: link.accountId,
    clicks: link.clicks,
    clicksThroughBatch: link.clicksThroughBatch,
    createdAt: link.createdAt,
    updatedAt: link.updatedAt,
    expiresAt: link.expiresAt,
    disabledAt: link.disabledAt,
    tags: link.tags.map(({ tag }) => tag),
    passwordProtected: link.passwordHash !== null,
    iosUrl: link.iosUrl,
    androidUrl: link.androidUrl,
  };
}

/**
 * Printable ASCII: all a stored code or URL is made of (targets with whitespace or control
 * characters are refused). A search with anything else matches nothing, and never reaches the
 * database: PostgreSQL refuses a NUL in text outright (that was a 500).
 */
export const ASCII = /^[\x20-\x7e]*$/;

/** Prisma's error code for "record to update not found". */
const RECORD_NOT_FOUND = 'P2025';

function hasPrismaCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}

/**
 * The links table. Ordinary queries through Prisma; creation, the list and search through the
 * LinkStore of the database in use, where Prisma was measured too slow (see link-store.ts).
 */
@Injectable()
export class LinksRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly store: LinkStore,
    private readonly loggedClicks: LoggedClicks,
    private readonly outbox: WebhookOutbox,
    private readonly outboxSignal: OutboxSignal,
  ) {}

  /**
   * Inserts a link unless its code exists. The code is the primary key, so the database decides
   * races: of concurrent inserts of one code exactly one succeeds, the others get null. With
   * `event`, the link's webhook messages are stored in the same transaction (the outbox).
   */
  async insertIfCodeFree(data: NewLink, event?: OutboxEvent<LinkRecord>): Promise<LinkRecord | null> {
    const now = new Date();
    const messagesOf = event && data.accountId ? outboxMessages(data.accountId, event) : undefined;
    const inserted = await this.store.insert(data, now, messagesOf);
    if (inserted && messagesOf) this.outboxSignal.notify();
    return inserted && newRecord(inserted);
  }

  /**
   * Inserts many links of one account at once, skipping those whose code exists; returns the
   * records inserted. With `event`, their webhook messages in the same transaction.
   */
  async insertManyIfCodesFree(links: NewLink[], event?: OutboxEvent<LinkRecord>): Promise<LinkRecord[]> {
    if (links.length === 0) return [];
    const now = new Date();
    const accountId = links[0].accountId;
    const messagesOf = event && accountId ? outboxMessages(accountId, event) : undefined;
    const inserted = await this.store.insertMany(links, now, messagesOf);
    if (inserted.length > 0 && messagesOf) this.outboxSignal.notify();
    return inserted.map(newRecord);
  }

  /** The account's link with this code; null for unknown codes and for other owners' links. */
  async findForAccount(code: string, accountId: string): Promise<LinkRecord | null> {
    const link = await this.store.findForAccount(code, accountId);
    return link ? this.withLoggedClicks(link) : null;
  }

  /**
   * One page of the account's links, newest first; with `search`, only links whose code or URL
   * contains it, ignoring case (a plain substring: `%`, `_` and `\` are ordinary characters);
   * with `tag` (lower case), only links with that tag.
   */
  async listForAccount(
    accountId: string,
    limit: number,
    offset: number,
    search?: string,
    tag?: string,
  ): Promise<{ links: LinkRecord[]; total: number }> {
    let page;
    if (search === undefined) {
      page = await this.store.listForAccount(accountId, limit, offset, tag);
    } else {
      // Stored codes and URLs are printable ASCII (the URL parser percent-encodes and punycodes the rest):
      // a search with any other character matches nothing, on both databases alike (PostgreSQL's
      // lower() would fold a few of them, e.g. the Kelvin sign, into ASCII letters; SQLite's not).
      if (!ASCII.test(search)) return { links: [], total: 0 };
      // The LIKE pattern for a plain substring: wildcards and the escape character escaped.
      const pattern = `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      page = await this.store.searchForAccount(accountId, pattern, limit, offset, tag);
    }
    return { links: page.links.map((link) => this.withLoggedClicks(link)), total: page.total };
  }

  /**
   * Changes the target, expiry, tags, password and/or device targets of the account's link
   * (undefined: unchanged; null removes an expiry, password or device target; tags replace the
   * link's); null when the account has no such link. The link and its tags change in one
   * transaction (Prisma's nested writes).
   */
  async updateForAccount(
    code: string,
    accountId: string,
    changes: LinkChanges,
    event?: OutboxEvent<LinkRecord>,
  ): Promise<LinkRecord | null> {
    const { tags, ...linkChanges } = changes;
    try {
      let tagChanges;
      if (tags !== undefined) {
        // The tag rows copy the link's creation time (see the LinkTag model).
        const link = await this.prisma.link.findUnique({
          where: { code },
          select: { accountId: true, createdAt: true },
        });
        if (link?.accountId !== accountId) return null;
        tagChanges = {
          // A change of tags alone is a change of the link too (and on PostgreSQL its row lock
          // makes two changes of one link's tags take turns).
          updatedAt: new Date(),
          tags: { deleteMany: {}, create: tags.map((tag) => ({ tag, accountId, createdAt: link.createdAt })) },
        };
      }
      const data = { ...linkChanges, ...tagChanges };
      if (!event) {
        return this.withLoggedClicks(
          fromPrisma(await this.prisma.link.update({ where: { code, accountId }, data, include: WITH_TAGS })),
        );
      }
      // The change and its webhook messages in one transaction (the outbox).
      const updated = await this.prisma.$transaction(async (tx) => {
        const record = this.withLoggedClicks(
          fromPrisma(await tx.link.update({ where: { code, accountId }, data, include: WITH_TAGS })),
        );
        await this.outbox.addInTransaction(tx, accountId, event.event, [event.body(record)]);
        return record;
      });
      this.outboxSignal.notify();
      return updated;
    } catch (error) {
      if (hasPrismaCode(error, RECORD_NOT_FOUND)) return null;
      throw error;
    }
  }

  /** Up to `limit` of the account's links after `after`, oldest first (created_at, then code). */
  async pageForExport(
    accountId: string,
    limit: number,
    after?: { createdAt: Date; code: string },
  ): Promise<LinkRecord[]> {
    const links = await this.prisma.link.findMany({
      where: after
        ? {
            accountId,
            OR: [{ createdAt: { gt: after.createdAt } }, { createdAt: after.createdAt, code: { gt: after.code } }],
          }
        : { accountId },
      orderBy: [{ createdAt: 'asc' }, { code: 'asc' }],
      take: limit,
      include: WITH_TAGS,
    });
    return links.map((link) => this.withLoggedClicks(fromPrisma(link)));
  }

  /** Every code of an account (for invalidating their cached redirects). */
  async codesOfAccount(accountId: string): Promise<string[]> {
    const rows = await this.prisma.link.findMany({ where: { accountId }, select: { code: true } });
    return rows.map((row) => row.code);
  }

  /**
   * Deletes the account's link; false when the account has no such link. With `event`, its
   * webhook messages in the same transaction.
   */
  async deleteForAccount(code: string, accountId: string, event?: OutboxEvent<{ code: string }>): Promise<boolean> {
    if (!event) {
      const { count } = await this.prisma.link.deleteMany({ where: { code, accountId } });
      return count > 0;
    }
    const deleted = await this.prisma.$transaction(async (tx) => {
      const { count } = await tx.link.deleteMany({ where: { code, accountId } });
      if (count > 0) await this.outbox.addInTransaction(tx, accountId, event.event, [event.body({ code })]);
      return count > 0;
    });
    if (deleted) this.outboxSignal.notify();
    return deleted;
  }

  /**
   * The record of a stored row, its clicks including those counted since the row was last
   * written (on SQLite, clicks logged and not folded into the row yet; nothing on PostgreSQL).
   */
  withLoggedClicks(link: StoredLink): LinkRecord {
    return {
      code: link.code,
      url: link.url,
      accountId: link.accountId,
      clicks: link.clicks + this.loggedClicks.clicksNotIn(link),
      createdAt: link.createdAt,
      updatedAt: link.updatedAt,
      expiresAt: link.expiresAt,
      disabledAt: link.disabledAt,
      tags: link.tags,
      passwordProtected: link.passwordProtected,
      iosUrl: link.iosUrl,
      androidUrl: link.androidUrl,
    };
  }
}

/** The store's outbox statements for `event`: each row's body, as its record. */
function outboxMessages(accountId: string, event: OutboxEvent<LinkRecord>): MessagesOf {
  return (rows) => ({
    accountId,
    event: event.event,
    bodies: new Map(rows.map((row) => [row.code, event.body(newRecord(row))])),
  });
}

/**
 * The record of a row just written: its clicks are those it was written with (a click logged for
 * a deleted link of the same code is not its).
 */
function newRecord(row: StoredLink): LinkRecord {
  const { clicksThroughBatch, ...record } = row;
  return record;
}
