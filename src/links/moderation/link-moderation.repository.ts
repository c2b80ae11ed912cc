import { Injectable } from '@nestjs/common';
import { PrismaService } from '../../database/prisma.service.js';
import { OutboxSignal } from '../../webhooks/outbox/outbox-signal.js';
import { WebhookOutbox, type TransactionClient } from '../../webhooks/outbox/webhook-outbox.js';
import { messageBody } from '../../webhooks/webhook-events.js';
import { DESTINATION_COLUMNS, destinationUrls } from '../link-destinations.js';
import { LinkResource } from '../link-resource.js';
import { ASCII, fromPrisma, LinksRepository, WITH_TAGS, type LinkRecord } from '../links.repository.js';
import type { StoredLink } from '../store/link-store.js';

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
 * How long a change of many links' states, with their messages, may hold its transaction: an
 * account's or a host's links at once (Prisma's default of 5 s is for a request's own rows).
 */
const STATE_CHANGE_TIMEOUT_MS = 120_000;

/**
 * The links as the instance's admins reach them, whoever owns them: reads for the admin pages
 * and API, and the changes of state that moderation makes (by hand, by a blocked host, by a
 * disabled account), each in a transaction with the `link.updated` messages it owes the owners'
 * webhooks (the outbox). Through Prisma: occasional reads and writes, off the hot paths.
 */
@Injectable()
export class LinkModerationRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly links: LinksRepository,
    private readonly resource: LinkResource,
    private readonly outbox: WebhookOutbox,
    private readonly outboxSignal: OutboxSignal,
  ) {}

  /** Any link by its code, whoever owns it: for the admins. */
  async findForAdmin(code: string): Promise<AdminLinkRecord | null> {
    const link = await this.prisma.link.findUnique({ where: { code }, include: ADMIN_VIEW });
    return link && this.toAdminRecord(link);
  }

  /** Links by their codes, whoever owns them (those that exist): for the admins' lists of reports. */
  async findManyForAdmin(codes: string[]): Promise<AdminLinkRecord[]> {
    if (codes.length === 0) return [];
    const links = await this.prisma.link.findMany({ where: { code: { in: codes } }, include: ADMIN_VIEW });
    return links.map((link) => this.toAdminRecord(link));
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
  async disableByAdmin(code: string, reason: string, at: Date, announce = false): Promise<boolean> {
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
      announce,
    );
    return true;
  }

  /**
   * Makes a disabled link live, whatever disabled it: the service checks first that nothing
   * holds it any more (a blocked host, its disabled account).
   */
  async enable(code: string, announce = false): Promise<void> {
    await this.changeStates(
      (tx) =>
        changedCodes(
          tx.link.updateManyAndReturn({
            where: { code, disabledAt: { not: null } },
            data: { disabledAt: null, disabledReason: null, disabledCause: null },
            select: { code: true },
          }),
        ),
      announce,
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
    announce = false,
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
        announce,
      );
      disabled.push(...live);
    }
    return disabled;
  }

  /**
   * Disables every live link of the account (cause `account`), in one statement; the codes of
   * the account's links (to drop from the caches).
   */
  async disableAllOfAccount(accountId: string, reason: string, at: Date, announce = false): Promise<string[]> {
    await this.changeStates(
      (tx) =>
        changedCodes(
          tx.link.updateManyAndReturn({
            where: { accountId, disabledAt: null },
            data: { disabledAt: at, disabledReason: reason, disabledCause: 'account' },
            select: { code: true },
          }),
        ),
      announce,
    );
    return this.links.codesOfAccount(accountId);
  }

  /**
   * Gives links that were disabled for `from` their new state: live, or disabled for another
   * cause that still holds. Only links still disabled for `from` change.
   */
  async restate(
    changes: Array<{ code: string; state: LinkState }>,
    from: DisabledCause,
    at: Date,
    announce = false,
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
          announce,
        );
      }
    }
  }

  /**
   * Runs `change`, which changes links' states and answers the codes it changed, in a transaction
   * and, with `announce`, stores a `link.updated` message for each of those links in the same
   * transaction (the outbox: a message exists if and only if its change committed). The codes.
   */
  private async changeStates(
    change: (tx: TransactionClient) => Promise<string[]>,
    announce: boolean,
  ): Promise<string[]> {
    let stored = 0;
    const codes = await this.prisma.$transaction(
      async (tx) => {
        const changed = await change(tx);
        if (announce) stored = await this.announceUpdated(tx, changed);
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
  private async announceUpdated(tx: TransactionClient, codes: string[]): Promise<number> {
    let stored = 0;
    for (let start = 0; start < codes.length; start += UPDATE_BATCH) {
      const links = await tx.link.findMany({
        where: { code: { in: codes.slice(start, start + UPDATE_BATCH) }, accountId: { not: null } },
        include: WITH_TAGS,
      });
      const byAccount = new Map<string, LinkRecord[]>();
      for (const link of links) {
        const record = this.links.withLoggedClicks(fromPrisma(link));
        if (record.accountId === null) continue;
        const records = byAccount.get(record.accountId) ?? [];
        records.push(record);
        byAccount.set(record.accountId, records);
      }
      for (const [accountId, records] of byAccount) {
        stored += await this.outbox.addInTransaction(tx, accountId, 'link.updated', () =>
          records.map((record) => messageBody('link.updated', this.resource.toDto(record), new Date())),
        );
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
      ...this.links.withLoggedClicks(fromPrisma(link)),
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
