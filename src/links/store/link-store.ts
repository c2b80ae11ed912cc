import type { OutboxMessages } from '../../webhooks/outbox/outbox-messages.js';

/** A link as stored: the `links` row, dates as dates. */
export interface StoredLink {
  code: string;
  url: string;
  accountId: string | null;
  /** The clicks the row includes (on SQLite, logged clicks may not be folded in yet: LoggedClicks). */
  clicks: number;
  /** The last click batch `clicks` includes (SQLite's click log; always 0 on PostgreSQL). */
  clicksThroughBatch: number;
  createdAt: Date;
  updatedAt: Date;
  expiresAt: Date | null;
  /** While set, the link is disabled (by an admin, a blocked host or its disabled account). */
  disabledAt: Date | null;
  /** Its tags, sorted (link_tags). */
  tags: string[];
  /** Whether it has a password (its hash is read by the redirect only). */
  passwordProtected: boolean;
  iosUrl: string | null;
  androidUrl: string | null;
}

/** What creating a link writes. */
export interface NewLink {
  code: string;
  url: string;
  accountId: string | null;
  expiresAt?: Date | null;
  /** Carried over by an import from another shortener; otherwise now, and 0. */
  createdAt?: Date;
  clicks?: number;
  /** Tags as `parseTags` gives them (lower case, each once); written with the link or not at all. */
  tags?: string[];
  /** The hash of its password (`hashPassword`, as account passwords); absent or null: none. */
  passwordHash?: string | null;
  /** Device targets, normalised; absent or null: none. */
  iosUrl?: string | null;
  androidUrl?: string | null;
}

/** The webhook messages about rows about to be written (each row's body by its code). */
export type MessagesOf = (rows: StoredLink[]) => OutboxMessages;

/**
 * The row an insert of `link` at `now` writes, as a read of it would give it: the stores' answer
 * to an insert, and what the webhook messages written with it describe.
 */
export function writtenRow(link: NewLink, now: Date): StoredLink {
  return {
    code: link.code,
    url: link.url,
    accountId: link.accountId,
    clicks: link.clicks ?? 0,
    clicksThroughBatch: 0,
    createdAt: link.createdAt ?? now,
    updatedAt: now,
    expiresAt: link.expiresAt ?? null,
    disabledAt: null,
    tags: link.tags ?? [],
    passwordProtected: typeof link.passwordHash === 'string',
    iosUrl: link.iosUrl ?? null,
    androidUrl: link.androidUrl ?? null,
  };
}

/** One page of links and the number of links the whole list has. */
export interface StoredLinkPage {
  links: StoredLink[];
  total: number;
}

/**
 * The link statements Prisma was measured too slow for (creation, the API's list, search and read of a link:
 * its query interpretation and result conversion cost more CPU than the queries themselves,
 * docs/performance.md), in plain SQL for one database kind each. Chosen once by
 * `linkStoreProvider` (link-store.provider.ts); everything else about links goes through Prisma (LinksRepository).
 */
export abstract class LinkStore {
  /**
   * Inserts a link and its tags unless its code exists (the primary key decides races: of
   * concurrent inserts of one code exactly one succeeds); the row it wrote, or null when the code
   * was taken, and then nothing was written. Timestamps `now`, clicks 0. With `messagesOf`, the
   * webhook messages about the row are stored in the same transaction (none when the code was taken).
   */
  async insert(link: NewLink, now: Date, messagesOf?: MessagesOf): Promise<StoredLink | null> {
    const row = writtenRow(link, now);
    return (await this.write(link, now, messagesOf?.([row]))) ? row : null;
  }

  /**
   * Inserts many links (with their tags) at once, skipping those whose code exists; the rows it
   * wrote, in the order given. With `messagesOf`, the messages of the rows inserted, in the same
   * transaction.
   */
  async insertMany(links: NewLink[], now: Date, messagesOf?: MessagesOf): Promise<StoredLink[]> {
    const rows = links.map((link) => writtenRow(link, now));
    const written = await this.writeMany(links, now, messagesOf?.(rows));
    return rows.filter((row) => written.has(row.code));
  }

  /** `insert`'s statements: whether the row was written. */
  protected abstract write(link: NewLink, now: Date, messages?: OutboxMessages): Promise<boolean>;

  /** `insertMany`'s statements: the codes written. */
  protected abstract writeMany(links: NewLink[], now: Date, messages?: OutboxMessages): Promise<Set<string>>;

  /**
   * The account's link `code` with its tags; undefined when the code is unknown or another
   * account's (or anonymous). The API's `GET /api/links/{code}`: through Prisma, a third of the
   * call's CPU.
   */
  abstract findForAccount(code: string, accountId: string): Promise<StoredLink | undefined>;

  /**
   * One page of the account's links, newest first (created_at, then code), each with its tags,
   * served by the (account_id, created_at, code) index; the total is the account's link count,
   * kept by triggers (migration 20261125110000_account_link_counts): one row read however large
   * the account. With `tag`, only the links with that tag, served by the (account_id, tag,
   * created_at, code) index of link_tags, the total kept by triggers too (account_tags,
   * migration 20261126080000_link_tags).
   */
  abstract listForAccount(accountId: string, limit: number, offset: number, tag?: string): Promise<StoredLinkPage>;

  /**
   * The same for the links whose code or URL matches `pattern`, a LIKE pattern with `\` as its
   * escape character, ignoring ASCII case (and with `tag`, that have that tag); the total counts
   * the matches.
   */
  abstract searchForAccount(
    accountId: string,
    pattern: string,
    limit: number,
    offset: number,
    tag?: string,
  ): Promise<StoredLinkPage>;
}
