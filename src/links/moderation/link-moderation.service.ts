import { Injectable } from '@nestjs/common';
import { BlockedHostList, type BlockedHostSnapshot } from '../../blocked-hosts/blocked-host-list.js';
import { blockKeys } from '../../blocked-hosts/blocked-host.js';
import { ApiError } from '../../common/errors/api-error.js';
import { WebhookSubscriptions } from '../../webhooks/outbox/webhook-subscriptions.js';
import type { LinkDto } from '../dto/link.dto.js';
import { LinkCache } from '../link-cache.js';
import { destinationsOf, destinationUrls, type LinkDestination } from '../link-destinations.js';
import { LinkResource } from '../link-resource.js';
import { couldBeCode } from '../short-code.js';
import {
  LinkModerationRepository,
  type AdminLinkRecord,
  type DisabledCause,
  type LinkState,
  type LinkToRecheck,
} from './link-moderation.repository.js';

/**
 * A link as the instance's admins see it: the resource, its owner, why it is disabled, and
 * every place it sends visitors (`destinations`, `url` first: what moderation must look at).
 */
export interface AdminLinkView extends LinkDto {
  /** The owner's e-mail address; null for an anonymous link. */
  owner_email: string | null;
  disabled_reason: string | null;
  disabled_cause: DisabledCause | null;
  destinations: LinkDestination[];
}

/** Cache invalidations in flight at once when many links change together (a host, an account). */
const INVALIDATIONS_AT_ONCE = 500;

/** Whether one of `urls` has `host` (normalised) or a subdomain of it as its host. */
function pointsAtHost(urls: string[], host: string): boolean {
  return urls.some((url) => URL.canParse(url) && blockKeys(new URL(url).hostname).includes(host));
}

/** The blocked host one of `urls` points at, or null. */
function blockerOfAny(urls: string[], blocked: BlockedHostSnapshot): string | null {
  for (const url of urls) {
    const host = blocked.blockerOf(url);
    if (host !== null) return host;
  }
  return null;
}

/**
 * Links as the instance's admins (src/admin), blocked hosts and account states decide them:
 * any link found and listed whoever owns it, disabled by hand or by a cause (a blocked host, a
 * disabled account) and enabled again only when no cause holds it. Each change reaches every
 * instance's redirect cache before it returns. The owners' side is LinksService.
 */
@Injectable()
export class LinkModeration {
  constructor(
    private readonly moderation: LinkModerationRepository,
    private readonly resource: LinkResource,
    private readonly cache: LinkCache,
    private readonly webhooks: WebhookSubscriptions,
    private readonly blockedHosts: BlockedHostList,
  ) {}

  /**
   * Whether the changes of links' states (disabled, enabled) tell the webhooks: one cache lookup
   * (some endpoint of any account receives `link.updated`); the repository then stores each
   * link's message for its own account's endpoints.
   */
  private announces(): Promise<boolean> {
    return this.webhooks.anyReceives('link.updated');
  }

  /** Any link by its code, whoever owns it. */
  async getForAdmin(code: string): Promise<AdminLinkView> {
    const link = couldBeCode(code) ? await this.moderation.findForAdmin(code) : null;
    if (!link) throw ApiError.notFound();
    return this.toAdminView(link);
  }

  /** Links by their codes as the admins see them (a code missing from the map: deleted since). */
  async getManyForAdmin(codes: string[]): Promise<Map<string, AdminLinkView>> {
    const links = await this.moderation.findManyForAdmin(codes.filter(couldBeCode));
    return new Map(links.map((link) => [link.code, this.toAdminView(link)]));
  }

  /**
   * A page of every account's links, newest first; `q`: part of a code, a URL or a host;
   * `accountId`: one account's links only.
   */
  async listForAdmin(
    limit: number,
    offset: number,
    q?: string,
    accountId?: string,
  ): Promise<{ data: AdminLinkView[]; total: number }> {
    const { links, total } = await this.moderation.listForAdmin(limit, offset, q?.trim() || undefined, accountId);
    return { data: links.map((link) => this.toAdminView(link)), total };
  }

  /**
   * An admin disables a link by hand: its redirect answers 410 on every instance before this
   * returns, and only an admin enables it again (its owner cannot; lifting a host block or an
   * account's disabling does not either).
   */
  async disableByAdmin(code: string, reason: string): Promise<LinkDto> {
    if (!couldBeCode(code)) throw ApiError.notFound();
    const announce = await this.announces();
    if (!(await this.moderation.disableByAdmin(code, reason, new Date(), announce))) throw ApiError.notFound();
    await this.cache.invalidate(code);
    return this.resource.toDto(await this.getRecordForAdmin(code));
  }

  /**
   * Enables a disabled link, unless something still holds it: one of its targets on a blocked
   * host, or its disabled account (`admin_conflict`, saying what to lift). A link disabled by a
   * block whose target its owner changed since is enabled here (unblocking would not find it).
   * A live link is answered as it is.
   */
  async enableByAdmin(code: string): Promise<LinkDto> {
    const link = await this.getRecordForAdmin(code);
    if (link.disabledAt === null) return this.resource.toDto(link);
    const host = blockerOfAny(destinationUrls(link), await this.blockedHosts.snapshot());
    if (host !== null) {
      throw ApiError.adminConflict(
        `This link stays disabled while its host ${host} is blocked: unblock the host to enable it`,
      );
    }
    if (link.ownerDisabled) {
      throw ApiError.adminConflict(
        `This link stays disabled while its account ${link.ownerEmail ?? ''} is disabled: enable the account to enable it`,
      );
    }
    await this.moderation.enable(code, await this.announces());
    await this.cache.invalidate(code);
    return this.resource.toDto(await this.getRecordForAdmin(code));
  }

  /**
   * Disables every live link with a target (its URL or a device target) on `host` (normalised)
   * or a subdomain of it; their codes.
   */
  async disableForHost(host: string): Promise<string[]> {
    const candidates = await this.moderation.findByHostPattern(host);
    const codes = candidates.filter((link) => pointsAtHost(link.urls, host)).map((link) => link.code);
    const announce = await this.announces();
    const disabled = await this.moderation.disableLive(codes, 'host', `Blocked host ${host}`, new Date(), announce);
    await this.invalidateAll(disabled);
    return disabled;
  }

  /**
   * After `host` was unblocked: the links its block disabled are live again, unless another
   * blocked host (a parent domain) or their disabled account still holds them. Links an admin
   * disabled by hand stay disabled. Their codes.
   */
  async enableForHost(host: string): Promise<string[]> {
    const blocked = await this.blockedHosts.snapshot();
    const links = (await this.moderation.findByHostPattern(host, 'host')).filter((link) =>
      pointsAtHost(link.urls, host),
    );
    await this.moderation.restate(
      links.map((link) => ({ code: link.code, state: this.stateAfterLifting('host', link, blocked) })),
      'host',
      new Date(),
      await this.announces(),
    );
    const codes = links.map((link) => link.code);
    await this.invalidateAll(codes);
    return codes;
  }

  /** Disables every live link of a disabled account (cause `account`). */
  async disableForAccount(accountId: string): Promise<void> {
    const announce = await this.announces();
    await this.invalidateAll(
      await this.moderation.disableAllOfAccount(accountId, 'Account disabled', new Date(), announce),
    );
  }

  /** After the account was enabled: its links are live again, but for those on a blocked host. */
  async enableForAccount(accountId: string): Promise<void> {
    const blocked = await this.blockedHosts.snapshot();
    const links = await this.moderation.findOfAccountDisabledFor(accountId, 'account');
    await this.moderation.restate(
      links.map((link) => ({ code: link.code, state: this.stateAfterLifting('account', link, blocked) })),
      'account',
      new Date(),
      await this.announces(),
    );
    await this.invalidateAll(links.map((link) => link.code));
  }

  /** What holds a link once `lifted` no longer does: a blocked host, its disabled account, or nothing. */
  private stateAfterLifting(lifted: DisabledCause, link: LinkToRecheck, blocked: BlockedHostSnapshot): LinkState {
    const host = blockerOfAny(link.urls, blocked);
    if (host !== null) return { cause: 'host', reason: `Blocked host ${host}` };
    if (lifted !== 'account' && link.accountDisabled) return { cause: 'account', reason: 'Account disabled' };
    return null;
  }

  private async getRecordForAdmin(code: string): Promise<AdminLinkRecord> {
    const link = couldBeCode(code) ? await this.moderation.findForAdmin(code) : null;
    if (!link) throw ApiError.notFound();
    return link;
  }

  /** Drops many codes from every instance's cache, many invalidations in flight at a time. */
  private async invalidateAll(codes: string[]): Promise<void> {
    for (let start = 0; start < codes.length; start += INVALIDATIONS_AT_ONCE) {
      await Promise.all(codes.slice(start, start + INVALIDATIONS_AT_ONCE).map((code) => this.cache.invalidate(code)));
    }
  }

  private toAdminView(link: AdminLinkRecord): AdminLinkView {
    return {
      ...this.resource.toDto(link),
      owner_email: link.ownerEmail,
      disabled_reason: link.disabledReason,
      disabled_cause: link.disabledCause,
      destinations: destinationsOf(link),
    };
  }
}
