import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { AccountsService, type AccountView, type AdminAccountView } from '../accounts/accounts.service.js';
import { ApiError } from '../common/errors/api-error.js';
import { BLOCKED_HOSTS_TTL_MS, BlockedHostList } from '../blocked-hosts/blocked-host-list.js';
import { normalizeBlockedHost } from '../blocked-hosts/blocked-host.js';
import { BlockedHostsRepository, type BlockedHostRecord } from '../blocked-hosts/blocked-hosts.repository.js';
import type { LinkDto } from '../links/dto/link.dto.js';
import { LinkModeration, type AdminLinkView } from '../links/moderation/link-moderation.service.js';
import { ReportsService, type AdminReportView } from '../reports/reports.service.js';
import { AuditLog, type Actor, type AuditEventView } from './audit-log.js';

/** A blocked host as the admins see it. */
export interface BlockedHostView {
  host: string;
  created_at: string;
  created_by: string;
}

/** The longest reason an admin may give (the audit log and the owner's link page show it). */
export const MAX_REASON_LENGTH = 500;

/**
 * A host blocked on another instance is refused for new links here once that instance's list is
 * read again (BLOCKED_HOSTS_TTL_MS); a link created in between is caught by a second sweep of
 * the block, this long after the first.
 */
export const BLOCK_RESWEEP_MS = BLOCKED_HOSTS_TTL_MS + 1_000;

function toBlockedHostView(record: BlockedHostRecord): BlockedHostView {
  return { host: record.host, created_at: record.createdAt.toISOString(), created_by: record.createdBy };
}

/** A reason as given: trimmed, null when empty, refused when too long. */
function reasonOf(input: string | null | undefined, required: boolean): string | null {
  const reason = input?.trim() ?? '';
  if (reason.length > MAX_REASON_LENGTH) {
    const message = `Use at most ${MAX_REASON_LENGTH} characters for the reason.`;
    throw ApiError.validationFailed(message, [{ field: 'reason', message }]);
  }
  if (required && reason === '') {
    const message = 'Give a reason: the audit log keeps it, and the link’s owner sees it.';
    throw ApiError.validationFailed(message, [{ field: 'reason', message }]);
  }
  return reason === '' ? null : reason;
}

/**
 * Every action of the instance's admins, from the pages, the API and the CLI alike: the change
 * itself (through the accounts', links' and reports' own services, which hold the rules), then
 * its line in the audit log.
 */
@Injectable()
export class AdminService implements OnApplicationShutdown {
  private readonly logger = new Logger('Admin');
  private readonly resweeps = new Set<NodeJS.Timeout>();

  constructor(
    private readonly accounts: AccountsService,
    private readonly links: LinkModeration,
    private readonly reports: ReportsService,
    private readonly blockedHosts: BlockedHostsRepository,
    private readonly blockedHostList: BlockedHostList,
    private readonly audit: AuditLog,
  ) {}

  onApplicationShutdown(): void {
    for (const timer of this.resweeps) clearTimeout(timer);
  }

  /** The actor of a signed-in admin's page or an admin token's call. */
  async actor(accountId: string, via: 'page' | 'api'): Promise<Actor> {
    const account = await this.accounts.get(accountId);
    return { accountId, label: account.email, via };
  }

  // ---- accounts ------------------------------------------------------------------------------

  /** The CLI's `account create --admin`. */
  async createAdmin(actor: Actor, email: string): Promise<AccountView> {
    const account = await this.accounts.create(email, { admin: true });
    await this.audit.record(actor, 'account.create_admin', { type: 'account', name: account.email });
    return account;
  }

  async setAdmin(actor: Actor, accountId: string, admin: boolean): Promise<AccountView> {
    const account = await this.accounts.setAdmin(accountId, admin);
    await this.audit.record(actor, admin ? 'account.grant_admin' : 'account.revoke_admin', {
      type: 'account',
      name: account.email,
    });
    return account;
  }

  async disableAccount(actor: Actor, accountId: string, reasonInput?: string | null): Promise<AccountView> {
    const reason = reasonOf(reasonInput, false);
    const account = await this.accounts.disable(accountId, reason, actor.accountId ?? undefined);
    await this.audit.record(actor, 'account.disable', { type: 'account', name: account.email }, reason);
    return account;
  }

  async enableAccount(actor: Actor, accountId: string): Promise<AccountView> {
    const account = await this.accounts.enable(accountId);
    await this.audit.record(actor, 'account.enable', { type: 'account', name: account.email });
    return account;
  }

  async deleteAccount(actor: Actor, accountId: string): Promise<void> {
    const account = await this.accounts.getForAdmin(accountId);
    if (!(await this.accounts.delete(accountId, actor.accountId ?? undefined)))
      throw ApiError.notFound('No such account');
    await this.audit.record(actor, 'account.delete', { type: 'account', name: account.email });
  }

  listAccounts(limit: number, offset: number, q?: string): Promise<{ data: AdminAccountView[]; total: number }> {
    return this.accounts.listForAdmin(limit, offset, q);
  }

  getAccount(id: string): Promise<AdminAccountView> {
    return this.accounts.getForAdmin(id);
  }

  /** The audit log, newest first. */
  auditLog(limit: number, offset: number): Promise<{ data: AuditEventView[]; total: number }> {
    return this.audit.list(limit, offset);
  }

  // ---- links ---------------------------------------------------------------------------------

  listLinks(
    limit: number,
    offset: number,
    q?: string,
    accountId?: string,
  ): Promise<{ data: AdminLinkView[]; total: number }> {
    return this.links.listForAdmin(limit, offset, q, accountId);
  }

  getLink(code: string): Promise<AdminLinkView> {
    return this.links.getForAdmin(code);
  }

  /** Links by their codes (a code missing from the map: deleted since). */
  getLinks(codes: string[]): Promise<Map<string, AdminLinkView>> {
    return this.links.getManyForAdmin(codes);
  }

  /** Disables a link by hand; its open reports are resolved. */
  async disableLink(actor: Actor, code: string, reasonInput: string | null | undefined): Promise<LinkDto> {
    const reason = reasonOf(reasonInput, true) as string;
    const link = await this.links.disableByAdmin(code, reason);
    await this.reports.resolveOpenOf(code, actor.label);
    await this.audit.record(actor, 'link.disable', { type: 'link', name: code }, reason);
    return link;
  }

  async enableLink(actor: Actor, code: string): Promise<LinkDto> {
    const link = await this.links.enableByAdmin(code);
    await this.audit.record(actor, 'link.enable', { type: 'link', name: code });
    return link;
  }

  // ---- blocked hosts -------------------------------------------------------------------------

  async listBlockedHosts(): Promise<BlockedHostView[]> {
    return (await this.blockedHosts.list()).map(toBlockedHostView);
  }

  /**
   * Blocks a host and its subdomains: new links to it are refused (`blocked_url`) and every live
   * link to it is disabled, on every instance, before this returns. The host is normalised
   * (`normalizeBlockedHost`); one blocked already is `admin_conflict`.
   */
  async blockHost(actor: Actor, input: unknown): Promise<BlockedHostView & { disabled_links: number }> {
    const host = normalizeBlockedHost(input);
    const record = await this.blockedHosts.add(host, actor.label);
    if (!record) throw ApiError.adminConflict(`${host} is blocked already`);
    await this.blockedHostList.refresh();
    // Scheduled first: should this sweep fail half-way, the second one still runs.
    this.resweepLater(host);
    const disabled = await this.links.disableForHost(host);
    await this.audit.record(actor, 'host.block', { type: 'host', name: host });
    return { ...toBlockedHostView(record), disabled_links: disabled.length };
  }

  /** Unblocks a host: the links its block disabled are live again (unless something else holds them). */
  async unblockHost(actor: Actor, input: unknown): Promise<{ enabled_links: number }> {
    const host = normalizeBlockedHost(input);
    if (!(await this.blockedHosts.remove(host))) throw ApiError.notFound(`${host} is not blocked`);
    await this.blockedHostList.refresh();
    const enabled = await this.links.enableForHost(host);
    await this.audit.record(actor, 'host.unblock', { type: 'host', name: host });
    return { enabled_links: enabled.length };
  }

  /**
   * The block's second sweep (see BLOCK_RESWEEP_MS), if the host is still blocked then. A
   * process that stops before it runs leaves such a link live: the admins' links page finds it
   * by host.
   */
  private resweepLater(host: string): void {
    const timer = setTimeout(() => {
      this.resweeps.delete(timer);
      void (async () => {
        if (!(await this.blockedHosts.find(host))) return;
        const late = await this.links.disableForHost(host);
        if (late.length > 0)
          this.logger.log(`Disabled ${late.length} link(s) to ${host} created while it was being blocked`);
      })().catch((error: unknown) => this.logger.warn(`Second sweep of blocked host ${host} failed: ${String(error)}`));
    }, BLOCK_RESWEEP_MS);
    timer.unref();
    this.resweeps.add(timer);
  }

  // ---- reports -------------------------------------------------------------------------------

  listReports(
    status: 'open' | 'resolved' | 'dismissed',
    limit: number,
    offset: number,
  ): Promise<{ data: AdminReportView[]; total: number }> {
    return this.reports.list(status, limit, offset);
  }

  async dismissReport(actor: Actor, id: string): Promise<AdminReportView> {
    const report = await this.reports.dismiss(id, actor.label);
    await this.audit.record(
      actor,
      'report.dismiss',
      { type: 'report', name: report.id },
      `${report.reason}: ${report.code}`,
    );
    return report;
  }

  /** Disables the reported link (the reason says which report), which resolves its open reports. */
  async disableReportedLink(actor: Actor, reportId: string, reasonInput?: string | null): Promise<LinkDto> {
    const report = await this.reports.get(reportId);
    const reason = reasonOf(reasonInput, false) ?? `Reported: ${report.reason}`;
    return this.disableLink(actor, report.code, reason);
  }
}
