import { Injectable } from '@nestjs/common';
import { LoggedClicks } from '../clicks/logged-clicks.js';
import { PrismaService } from '../database/prisma.service.js';
import type { OutboxEvent, OutboxMessages } from '../webhooks/outbox/outbox-messages.js';
import { OutboxSignal } from '../webhooks/outbox/outbox-signal.js';
import { WebhookOutbox, type TransactionClient } from '../webhooks/outbox/webhook-outbox.js';
import { DESTINATION_COLUMNS, destinationUrls } from './link-destinations.js';
import { LinkStore, type NewLink, type StoredLink } from './store/link-store.js';

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

/**
 * Who disabled a link, kept so that undoing one cause never undoes another: `admin` by hand,
 * `host` a blocked host, `account` its disabled account.
 */
export type DisabledCause = 'admin' | 'host' | 'account';

/** A link as the instance's admins see it: its owner and why it is disabled. */
export interface AdminLinkRecord extends LinkRecord {
  /** The owner's e-mail address; null for an anonymous link. */
  ownerEmail: string | null;
  /** The owner's account is disabled (which keeps the link disabled). */
  ownerDisabled: boolean;
  disabledReason: string | null;
  disabledCause: DisabledCause | null;
}

/** A link whose disabled state a rule decides again (a host unblocked, an account enabled). */
export interface LinkToRecheck {
  code: string;
  /** Its destinations' URLs (link-destinations.ts). */
  urls: string[];
  accountDisabled: boolean;
}

/** Prisma's `select` of every destination column (link-destinations.ts lists them). */
const DESTINATIONS_SELECT = Object.fromEntries(DESTINATION_COLUMNS.map((column) => [column, true])) as Record<
  (typeof DESTINATION_COLUMNS)[number],
  true
>;

/** Prisma's condition "one of the link's destinations contains one of `texts`" (LIKE, as `contains` is). */
function anyDestinationContains(texts: string[]) {
  return texts.flatMap((text) => DESTINATION_COLUMNS.map((column) => ({ [column]: { contains: text } })));
}

/** A link's new state: live (null), or disabled for this cause and reason. */
export type LinkState = { cause: DisabledCause; reason: string } | null;

/** Rows changed per UPDATE … WHERE code IN (…): far below either database's parameter limit. */
const UPDATE_BATCH = 500;

/**
 * A `link.updated` message's body for a link as it is now (the resource as the API answers it:
 * LinksService). Given to the changes that disable or enable links when some endpoint receives
 * `link.updated`; without it they store no message.
 */
export type LinkUpdatedBody = (record: LinkRecord) => string;

/**
 * How long a change of many links' states, with their messages, may hold its transaction: an
 * account's or a host's links at once (Prisma's default of 5 s is for a request's own rows).
 */
const STATE_CHANGE_TIMEOUT_MS = 120_000;

/** What Prisma reads of a link's tags: sorted, as the stores read them. */
const WITH_TAGS = { tags: { select: { tag: true }, orderBy: { tag: 'asc' } } } as const;

/** A link as Prisma reads it `WITH_TAGS`, as the stores give it (its password's hash left behind). */
function fromPrisma(
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
const ASCII = /^[\x20-\x7e]*$/;

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
    const record = newRecord(data, now);
    const messages = event && data.accountId ? outboxMessages(data.accountId, event, [record]) : undefined;
    const inserted = await this.store.insert(data, now, messages);
    if (inserted && messages) this.outboxSignal.notify();
    return inserted ? record : null;
  }

  /**
   * Inserts many links of one account at once, skipping those whose code exists; returns the
   * records inserted. With `event`, their webhook messages in the same transaction.
   */
  async insertManyIfCodesFree(links: NewLink[], event?: OutboxEvent<LinkRecord>): Promise<LinkRecord[]> {
    if (links.length === 0) return [];
    const now = new Date();
    const records = links.map((link) => newRecord(link, now));
    const accountId = links[0].accountId;
    const messages = event && accountId ? outboxMessages(accountId, event, records) : undefined;
    const inserted = await this.store.insertMany(links, now, messages);
    if (inserted.size > 0 && messages) this.outboxSignal.notify();
    return records.filter((record) => inserted.has(record.code));
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
  private withLoggedClicks(link: StoredLink): LinkRecord {
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

  // ---- the instance's administration ------------------------------------------------------

  /** Any link by its code, whoever owns it: for the admins. */
  async findForAdmin(code: string): Promise<AdminLinkRecord | null> {
    const link = await this.prisma.link.findUnique({ where: { code }, include: ADMIN_VIEW });
    return link && this.toAdminRecord(link);
  }

  /**
   * One page of every account's links (and the anonymous ones), newest first; with `search`,
   * those whose code or one of whose destinations (`url`, `ios_url`, `android_url`: see
   * link-destinations.ts) contains it (a URL's scheme and host are stored in lower case, so a
   * host is found however it is typed); with `accountId`, that account's links only. For the
   * admins' pages and API: an occasional read, through Prisma.
   */
  async listForAdmin(
    limit: number,
    offset: number,
    search?: string,
    accountId?: string,
  ): Promise<{ links: AdminLinkRecord[]; total: number }> {
    // As the owners' search: nothing else is stored (and PostgreSQL refuses a NUL in text).
    if (search !== undefined && !ASCII.test(search)) return { links: [], total: 0 };
    const where = {
      ...(accountId === undefined ? {} : { accountId }),
      ...(search
        ? {
            // As typed, and in lower case for a host typed in capitals (PostgreSQL's LIKE minds case).
            OR: [
              { code: { contains: search } },
              ...anyDestinationContains([...new Set([search, search.toLowerCase()])]),
            ],
          }
        : {}),
    };
    const [links, total] = await Promise.all([
      this.prisma.link.findMany({
        where,
        orderBy: [{ createdAt: 'desc' }, { code: 'asc' }],
        take: limit,
        skip: offset,
        include: ADMIN_VIEW,
      }),
      search ? this.prisma.link.count({ where }) : this.countLinks(accountId),
    ]);
    return { links: links.map((link) => this.toAdminRecord(link)), total };
  }

  /**
   * Every link, or an account's, counted without Prisma's `count`, which counts a subquery that
   * lists every row (28 ms at 100k links on SQLite, against well under one for `count(*)`, which
   * SQLite answers from the b-tree's pages); an account's from the count its triggers keep.
   */
  private async countLinks(accountId: string | undefined): Promise<number> {
    if (accountId !== undefined) {
      const account = await this.prisma.account.findUnique({ where: { id: accountId }, select: { linkCount: true } });
      return account?.linkCount ?? 0;
    }
    const [row] = await this.prisma.$queryRawUnsafe<[{ total: bigint | number }]>(
      'SELECT count(*) AS total FROM links',
    );
    return Number(row.total);
  }

  /**
   * Disables a link by hand (cause `admin`): also one that a blocked host or its account keeps
   * disabled, so that lifting those no longer brings it back. False for an unknown code; a link
   * an admin disabled already keeps its first reason.
   */
  async disableByAdmin(code: string, reason: string, at: Date, updated?: LinkUpdatedBody): Promise<boolean> {
    const link = await this.prisma.link.findUnique({ where: { code }, select: { disabledCause: true } });
    if (!link) return false;
    await this.changeStates(
      (tx) =>
        changedCodes(
          tx.link.updateManyAndReturn({
            where: { code, OR: [{ disabledCause: null }, { disabledCause: { not: 'admin' } }] },
            data: { disabledAt: at, disabledReason: reason, disabledCause: 'admin' },
            select: { code: true },
          }),
        ),
      updated,
    );
    return true;
  }

  /**
   * Makes a disabled link live, whatever disabled it: the service checks first that nothing
   * holds it any more (a blocked host, its disabled account).
   */
  async enable(code: string, updated?: LinkUpdatedBody): Promise<void> {
    await this.changeStates(
      (tx) =>
        changedCodes(
          tx.link.updateManyAndReturn({
            where: { code, disabledAt: { not: null } },
            data: { disabledAt: null, disabledReason: null, disabledCause: null },
            select: { code: true },
          }),
        ),
      updated,
    );
  }

  /**
   * The live links (or, with `cause`, the links disabled for it) with a destination (`url`,
   * `ios_url`, `android_url`: link-destinations.ts) that may point at `host` or a subdomain of
   * it: every such URL with
   * `://host/`, `://host:`, `.host/` or `.host:` in it. A superset (the text may sit in a path,
   * `_` is a LIKE wildcard): the caller checks each target's host. On PostgreSQL the trigram
   * index serves the patterns on `url`.
   */
  async findByHostPattern(host: string, cause?: DisabledCause): Promise<LinkToRecheck[]> {
    const patterns = [`://${host}/`, `://${host}:`, `.${host}/`, `.${host}:`];
    const links = await this.prisma.link.findMany({
      where: {
        ...(cause ? { disabledCause: cause } : { disabledAt: null }),
        OR: anyDestinationContains(patterns),
      },
      select: { code: true, ...DESTINATIONS_SELECT, account: { select: { disabledAt: true } } },
    });
    return links.map((link) => ({
      code: link.code,
      urls: destinationUrls(link),
      accountDisabled: Boolean(link.account?.disabledAt),
    }));
  }

  /** The account's links disabled for `cause`. */
  async findOfAccountDisabledFor(accountId: string, cause: DisabledCause): Promise<LinkToRecheck[]> {
    const links = await this.prisma.link.findMany({
      where: { accountId, disabledCause: cause },
      select: { code: true, ...DESTINATIONS_SELECT },
    });
    return links.map((link) => ({ code: link.code, urls: destinationUrls(link), accountDisabled: false }));
  }

  /**
   * Disables the live links among `codes` for `cause`; the codes it disabled. A link that became
   * disabled meanwhile (by another cause) keeps its own.
   */
  async disableLive(
    codes: string[],
    cause: DisabledCause,
    reason: string,
    at: Date,
    updated?: LinkUpdatedBody,
  ): Promise<string[]> {
    const disabled: string[] = [];
    for (let start = 0; start < codes.length; start += UPDATE_BATCH) {
      const batch = codes.slice(start, start + UPDATE_BATCH);
      const live = await this.changeStates(
        (tx) =>
          changedCodes(
            tx.link.updateManyAndReturn({
              where: { code: { in: batch }, disabledAt: null },
              data: { disabledAt: at, disabledReason: reason, disabledCause: cause },
              select: { code: true },
            }),
          ),
        updated,
      );
      disabled.push(...live);
    }
    return disabled;
  }

  /**
   * Disables every live link of the account (cause `account`), in one statement; the codes of
   * the account's links (to drop from the caches).
   */
  async disableAllOfAccount(accountId: string, reason: string, at: Date, updated?: LinkUpdatedBody): Promise<string[]> {
    await this.changeStates(
      (tx) =>
        changedCodes(
          tx.link.updateManyAndReturn({
            where: { accountId, disabledAt: null },
            data: { disabledAt: at, disabledReason: reason, disabledCause: 'account' },
            select: { code: true },
          }),
        ),
      updated,
    );
    return this.codesOfAccount(accountId);
  }

  /**
   * Gives links that were disabled for `from` their new state: live, or disabled for another
   * cause that still holds. Only links still disabled for `from` change.
   */
  async restate(
    changes: Array<{ code: string; state: LinkState }>,
    from: DisabledCause,
    at: Date,
    updated?: LinkUpdatedBody,
  ): Promise<void> {
    const groups = new Map<string, { state: LinkState; codes: string[] }>();
    for (const { code, state } of changes) {
      const key = state ? `${state.cause}\u0000${state.reason}` : '';
      const group = groups.get(key) ?? { state, codes: [] };
      group.codes.push(code);
      groups.set(key, group);
    }
    for (const { state, codes } of groups.values()) {
      for (let start = 0; start < codes.length; start += UPDATE_BATCH) {
        const batch = codes.slice(start, start + UPDATE_BATCH);
        await this.changeStates(
          (tx) =>
            changedCodes(
              tx.link.updateManyAndReturn({
                where: { code: { in: batch }, disabledCause: from },
                data: state
                  ? { disabledAt: at, disabledReason: state.reason, disabledCause: state.cause }
                  : { disabledAt: null, disabledReason: null, disabledCause: null },
                select: { code: true },
              }),
            ),
          updated,
        );
      }
    }
  }

  /**
   * Runs `change`, which changes links' states and answers the codes it changed, in a transaction
   * and, with `updated`, stores a `link.updated` message for each of those links in the same
   * transaction (the outbox: a message exists if and only if its change committed). The codes.
   */
  private async changeStates(
    change: (tx: TransactionClient) => Promise<string[]>,
    updated: LinkUpdatedBody | undefined,
  ): Promise<string[]> {
    let stored = 0;
    const codes = await this.prisma.$transaction(
      async (tx) => {
        const changed = await change(tx);
        if (updated) stored = await this.announceUpdated(tx, changed, updated);
        return changed;
      },
      { timeout: STATE_CHANGE_TIMEOUT_MS },
    );
    if (stored > 0) this.outboxSignal.notify();
    return codes;
  }

  /**
   * In `tx`: a `link.updated` message for each of the links `codes` as they are now, to the
   * endpoints of its account that receive it (an anonymous link has none). The messages stored.
   */
  private async announceUpdated(tx: TransactionClient, codes: string[], updated: LinkUpdatedBody): Promise<number> {
    let stored = 0;
    for (let start = 0; start < codes.length; start += UPDATE_BATCH) {
      const links = await tx.link.findMany({
        where: { code: { in: codes.slice(start, start + UPDATE_BATCH) }, accountId: { not: null } },
        include: WITH_TAGS,
      });
      const byAccount = new Map<string, LinkRecord[]>();
      for (const link of links) {
        const record = this.withLoggedClicks(fromPrisma(link));
        if (record.accountId === null) continue;
        const records = byAccount.get(record.accountId) ?? [];
        records.push(record);
        byAccount.set(record.accountId, records);
      }
      for (const [accountId, records] of byAccount) {
        stored += await this.outbox.addInTransaction(tx, accountId, 'link.updated', () => records.map(updated));
      }
    }
    return stored;
  }

  private toAdminRecord(
    link: Omit<StoredLink, 'tags' | 'passwordProtected'> & {
      passwordHash: string | null;
      tags: Array<{ tag: string }>;
      disabledReason: string | null;
      disabledCause: string | null;
      account: { email: string; disabledAt: Date | null } | null;
    },
  ): AdminLinkRecord {
    return {
      ...this.withLoggedClicks(fromPrisma(link)),
      ownerEmail: link.account?.email ?? null,
      ownerDisabled: Boolean(link.account?.disabledAt),
      disabledReason: link.disabledReason,
      disabledCause: link.disabledCause as DisabledCause | null,
    };
  }
}

/** What the admins' reads include: the tags (as `fromPrisma` reads them) and the owner. */
const ADMIN_VIEW = { ...WITH_TAGS, account: { select: { email: true, disabledAt: true } } } as const;

/** The codes of the rows an `updateManyAndReturn` changed: exactly those, whatever ran beside it. */
async function changedCodes(rows: Promise<Array<{ code: string }>>): Promise<string[]> {
  return (await rows).map((row) => row.code);
}

/** The message bodies of `records` for the store's outbox statements. */
function outboxMessages(accountId: string, event: OutboxEvent<LinkRecord>, records: LinkRecord[]): OutboxMessages {
  return { accountId, event: event.event, bodies: new Map(records.map((record) => [record.code, event.body(record)])) };
}

function newRecord(link: NewLink, now: Date): LinkRecord {
  return {
    code: link.code,
    url: link.url,
    accountId: link.accountId,
    expiresAt: link.expiresAt ?? null,
    disabledAt: null,
    clicks: link.clicks ?? 0,
    createdAt: link.createdAt ?? now,
    updatedAt: now,
    tags: link.tags ?? [],
    passwordProtected: typeof link.passwordHash === 'string',
    iosUrl: link.iosUrl ?? null,
    androidUrl: link.androidUrl ?? null,
  };
}
