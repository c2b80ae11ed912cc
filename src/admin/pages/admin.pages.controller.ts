import { Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AdminOnly, CurrentSession } from '../../auth/auth.decorators.js';
import type { ActiveSession } from '../../auth/sessions/sessions.service.js';
import { ApiError } from '../../common/errors/api-error.js';
import { PageController } from '../../pages/page-controller.decorator.js';
import { field, Pages, type Form } from '../../pages/pages.js';
import { isReportStatus, type ReportStatus } from '../../reports/reports.service.js';
import { AdminService, MAX_REASON_LENGTH } from '../admin.service.js';
import type { Actor } from '../audit-log.js';

const PAGE_SIZE = 20;
/** Longest search the pages take (a longer `?q=` is cut: a search, not a form to refuse). */
const MAX_SEARCH_LENGTH = 200;

/** The admin pages, in the order of their navigation. */
const SECTIONS = [
  { path: '/admin/reports', name: 'Reports' },
  { path: '/admin/links', name: 'Links' },
  { path: '/admin/accounts', name: 'Accounts' },
  { path: '/admin/blocked-hosts', name: 'Blocked hosts' },
  { path: '/admin/audit', name: 'Audit log' },
] as const;
type Section = (typeof SECTIONS)[number]['path'];

/** What a list page says after an action succeeded (`?done=`). */
const DONE: Record<string, string> = {
  'account-disabled': 'Account disabled: it is signed out, its tokens are refused and its links are disabled.',
  'account-enabled': 'Account enabled, with the links its disabling had disabled.',
  'account-deleted': 'Account deleted, with its links and tokens.',
  'link-disabled': 'Link disabled: it answers 410 from now on.',
  'link-enabled': 'Link enabled: it redirects again.',
  'host-blocked': 'Host blocked.',
  'host-unblocked': 'Host unblocked: the links its block disabled redirect again.',
  'report-dismissed': 'Report dismissed.',
};

/** The page number of `?page=` (1 for anything that is not a page number). */
function pageOf(value: unknown): number {
  return typeof value === 'string' && /^\d{1,6}$/.test(value) && Number(value) >= 1 ? Number(value) : 1;
}

function searchOf(value: unknown): string {
  return typeof value === 'string' ? value.trim().slice(0, MAX_SEARCH_LENGTH) : '';
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Where a list's form sends the admin back to: the list it was on (`return_to`, with its search
 * and page), when it is that list; else the list itself.
 */
function backTo(form: Form, list: Section, done: string, extra: Record<string, string> = {}): string {
  const given = field(form, 'return_to', 500);
  const back = given === list || given.startsWith(`${list}?`) ? new URL(given, 'http://admin.invalid') : null;
  const params = new URLSearchParams(back?.search ?? '');
  params.delete('done');
  params.set('done', done);
  for (const [key, value] of Object.entries(extra)) params.set(key, value);
  return `${list}?${params.toString()}`;
}

/** The reason a form gives for disabling (one character over the limit, so a longer one is refused, not cut). */
function reasonOf(form: Form): string {
  return field(form, 'reason', MAX_REASON_LENGTH + 1);
}

/** The query string of a list page's links to its other pages (its search kept). */
function pageQuery(params: Record<string, string | undefined>): string {
  const kept = Object.entries(params).filter((entry): entry is [string, string] => Boolean(entry[1]));
  return kept.map(([key, value]) => `&${key}=${encodeURIComponent(value)}`).join('');
}

/**
 * The instance's administration, for admins only (`@AdminOnly()`: signed out → sign in, anyone
 * else → 404): reports, every account's links, accounts, blocked hosts and the audit log. Every
 * action goes through AdminService, as the API's and the CLI's do, and so into the audit log.
 * A refusal (the last admin, a reason too long, …) is shown on the list it came from.
 */
@PageController()
@AdminOnly()
export class AdminPagesController {
  constructor(
    private readonly admin: AdminService,
    private readonly pages: Pages,
  ) {}

  @Get('/admin')
  async overview(@Res() reply: FastifyReply, @CurrentSession() session: ActiveSession) {
    const [reports, hosts, audit] = await Promise.all([
      this.admin.listReports('open', 1, 0),
      this.admin.listBlockedHosts(),
      this.admin.auditLog(5, 0),
    ]);
    return this.render(reply, session, 'admin', '/admin', {
      openReports: reports.total,
      blockedHosts: hosts.length,
      recent: audit.data,
    });
  }

  // ---- reports -------------------------------------------------------------------------------

  @Get('/admin/reports')
  async reportsPage(
    @Res() reply: FastifyReply,
    @Query('status') status: unknown,
    @Query('page') page: unknown,
    @Query('done') done: unknown,
    @CurrentSession() session: ActiveSession,
  ) {
    return this.renderReports(reply, session, isReportStatus(status) ? status : 'open', pageOf(page), { done });
  }

  @Post('/admin/reports/:id/disable-link')
  async disableReportedLink(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @Param('id') id: string,
    @CurrentSession() session: ActiveSession,
  ) {
    return this.act(
      request,
      reply,
      session,
      { list: '/admin/reports', done: 'link-disabled' },
      (actor, form) => this.admin.disableReportedLink(actor, id, reasonOf(form)),
      (alert, status) => this.renderReports(reply, session, 'open', 1, { alert }, status),
    );
  }

  @Post('/admin/reports/:id/dismiss')
  async dismissReport(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @Param('id') id: string,
    @CurrentSession() session: ActiveSession,
  ) {
    return this.act(
      request,
      reply,
      session,
      { list: '/admin/reports', done: 'report-dismissed' },
      (actor) => this.admin.dismissReport(actor, id),
      (alert, status) => this.renderReports(reply, session, 'open', 1, { alert }, status),
    );
  }

  // ---- links ---------------------------------------------------------------------------------

  @Get('/admin/links')
  async linksPage(
    @Res() reply: FastifyReply,
    @Query('q') q: unknown,
    @Query('account') account: unknown,
    @Query('page') page: unknown,
    @Query('done') done: unknown,
    @CurrentSession() session: ActiveSession,
  ) {
    const accountId = typeof account === 'string' && UUID.test(account) ? account : undefined;
    return this.renderLinks(reply, session, { q: searchOf(q), accountId, page: pageOf(page), done });
  }

  @Post('/admin/links/:code/disable')
  async disableLink(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @Param('code') code: string,
    @CurrentSession() session: ActiveSession,
  ) {
    return this.act(
      request,
      reply,
      session,
      { list: '/admin/links', done: 'link-disabled' },
      (actor, form) => this.admin.disableLink(actor, code, reasonOf(form)),
      (alert, status) => this.renderLinks(reply, session, { q: code, page: 1, alert }, status),
    );
  }

  @Post('/admin/links/:code/enable')
  async enableLink(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @Param('code') code: string,
    @CurrentSession() session: ActiveSession,
  ) {
    return this.act(
      request,
      reply,
      session,
      { list: '/admin/links', done: 'link-enabled' },
      (actor) => this.admin.enableLink(actor, code),
      (alert, status) => this.renderLinks(reply, session, { q: code, page: 1, alert }, status),
    );
  }

  // ---- accounts ------------------------------------------------------------------------------

  @Get('/admin/accounts')
  async accountsPage(
    @Res() reply: FastifyReply,
    @Query('q') q: unknown,
    @Query('page') page: unknown,
    @Query('done') done: unknown,
    @CurrentSession() session: ActiveSession,
  ) {
    return this.renderAccounts(reply, session, { q: searchOf(q), page: pageOf(page), done });
  }

  @Post('/admin/accounts/:id/disable')
  async disableAccount(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @Param('id') id: string,
    @CurrentSession() session: ActiveSession,
  ) {
    return this.act(
      request,
      reply,
      session,
      { list: '/admin/accounts', done: 'account-disabled' },
      (actor, form) => this.admin.disableAccount(actor, id, reasonOf(form)),
      (alert, status) => this.renderAccounts(reply, session, { q: '', page: 1, alert }, status),
    );
  }

  @Post('/admin/accounts/:id/enable')
  async enableAccount(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @Param('id') id: string,
    @CurrentSession() session: ActiveSession,
  ) {
    return this.act(
      request,
      reply,
      session,
      { list: '/admin/accounts', done: 'account-enabled' },
      (actor) => this.admin.enableAccount(actor, id),
      (alert, status) => this.renderAccounts(reply, session, { q: '', page: 1, alert }, status),
    );
  }

  @Post('/admin/accounts/:id/delete')
  async deleteAccount(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @Param('id') id: string,
    @CurrentSession() session: ActiveSession,
  ) {
    return this.act(
      request,
      reply,
      session,
      { list: '/admin/accounts', done: 'account-deleted' },
      (actor) => this.admin.deleteAccount(actor, id),
      (alert, status) => this.renderAccounts(reply, session, { q: '', page: 1, alert }, status),
    );
  }

  // ---- blocked hosts -------------------------------------------------------------------------

  @Get('/admin/blocked-hosts')
  async blockedHostsPage(
    @Res() reply: FastifyReply,
    @Query('done') done: unknown,
    @Query('host') host: unknown,
    @Query('links') links: unknown,
    @CurrentSession() session: ActiveSession,
  ) {
    const count = typeof links === 'string' && /^\d{1,9}$/.test(links) ? Number(links) : undefined;
    const named = typeof host === 'string' ? host.slice(0, 300) : '';
    return this.renderBlockedHosts(reply, session, { form: {}, errors: {}, done, host: named, links: count });
  }

  @Post('/admin/blocked-hosts')
  async blockHost(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @CurrentSession() session: ActiveSession,
  ) {
    const host = field(request.body as Form, 'host', 1000);
    try {
      const blocked = await this.admin.blockHost(await this.actor(session), host);
      const params = new URLSearchParams({
        done: 'host-blocked',
        host: blocked.host,
        links: String(blocked.disabled_links),
      });
      return reply.redirect(`/admin/blocked-hosts?${params.toString()}`, 303);
    } catch (error) {
      if (!(error instanceof ApiError) || error.getStatus() >= 500) throw error;
      // Next to the field: what was wrong with the host, and the host as typed.
      const message = error.fieldErrors?.[0]?.message ?? error.detail;
      return this.renderBlockedHosts(
        reply,
        session,
        { form: { host }, errors: { host: `${message.replace(/^host /, 'The host ')}.`.replace(/\.\.$/, '.') } },
        error.getStatus(),
      );
    }
  }

  @Post('/admin/blocked-hosts/remove')
  async unblockHost(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @CurrentSession() session: ActiveSession,
  ) {
    return this.act(
      request,
      reply,
      session,
      { list: '/admin/blocked-hosts', done: 'host-unblocked' },
      (actor, form) => this.admin.unblockHost(actor, field(form, 'host', 1000)),
      (alert, status) => this.renderBlockedHosts(reply, session, { form: {}, errors: {}, alert }, status),
    );
  }

  // ---- audit log -----------------------------------------------------------------------------

  @Get('/admin/audit')
  async auditPage(@Res() reply: FastifyReply, @Query('page') page: unknown, @CurrentSession() session: ActiveSession) {
    const current = pageOf(page);
    const log = await this.admin.auditLog(PAGE_SIZE, (current - 1) * PAGE_SIZE);
    return this.render(reply, session, 'admin-audit', '/admin/audit', {
      log,
      page: current,
      pages: Math.max(1, Math.ceil(log.total / PAGE_SIZE)),
    });
  }

  // ---- rendering -----------------------------------------------------------------------------

  private actor(session: ActiveSession): Promise<Actor> {
    return this.admin.actor(session.accountId, 'page');
  }

  /**
   * Runs an action of a form posted from a list: on success, 303 back to the list (its page and
   * search as the form's `return_to` says) with `done`; refused (an ApiError a person can act
   * on), the page again with the refusal as an alert and its status. Faults go on to the error page.
   */
  private async act(
    request: FastifyRequest,
    reply: FastifyReply,
    session: ActiveSession,
    back: { list: Section; done: string },
    action: (actor: Actor, form: Form) => Promise<unknown>,
    refused: (alert: string, status: number) => Promise<unknown>,
  ) {
    const form = request.body as Form;
    try {
      await action(await this.actor(session), form);
      return reply.redirect(backTo(form, back.list, back.done), 303);
    } catch (error) {
      if (!(error instanceof ApiError) || error.getStatus() >= 500) throw error;
      return refused(error.fieldErrors?.[0]?.message ?? error.detail, error.getStatus());
    }
  }

  private async renderReports(
    reply: FastifyReply,
    session: ActiveSession,
    status: ReportStatus,
    page: number,
    extra: { done?: unknown; alert?: string },
    httpStatus = 200,
  ) {
    const reports = await this.admin.listReports(status, PAGE_SIZE, (page - 1) * PAGE_SIZE);
    // Each report with its link as it is now (null: deleted since), the page's links in one read.
    const links = await this.admin.getLinks([...new Set(reports.data.map((report) => report.code))]);
    const withLinks = reports.data.map((report) => ({ ...report, link: links.get(report.code) ?? null }));
    return this.render(
      reply,
      session,
      'admin-reports',
      '/admin/reports',
      {
        reports: withLinks,
        total: reports.total,
        status,
        page,
        pages: Math.max(1, Math.ceil(reports.total / PAGE_SIZE)),
        returnTo: `/admin/reports?status=${status}&page=${page}`,
        ...this.notices(extra),
      },
      httpStatus,
    );
  }

  private async renderLinks(
    reply: FastifyReply,
    session: ActiveSession,
    query: { q: string; accountId?: string; page: number; done?: unknown; alert?: string },
    httpStatus = 200,
  ) {
    const { q, accountId, page } = query;
    const list = await this.admin.listLinks(PAGE_SIZE, (page - 1) * PAGE_SIZE, q, accountId);
    const account = accountId ? await this.admin.getAccount(accountId).catch(() => null) : null;
    const here = `/admin/links?${new URLSearchParams({
      ...(q ? { q } : {}),
      ...(accountId ? { account: accountId } : {}),
      page: String(page),
    }).toString()}`;
    return this.render(
      reply,
      session,
      'admin-links',
      '/admin/links',
      {
        list,
        q,
        account,
        page,
        pages: Math.max(1, Math.ceil(list.total / PAGE_SIZE)),
        pageQuery: pageQuery({ q, account: accountId }),
        returnTo: here,
        maxReason: MAX_REASON_LENGTH,
        ...this.notices(query),
      },
      httpStatus,
    );
  }

  private async renderAccounts(
    reply: FastifyReply,
    session: ActiveSession,
    query: { q: string; page: number; done?: unknown; alert?: string },
    httpStatus = 200,
  ) {
    const { q, page } = query;
    const list = await this.admin.listAccounts(PAGE_SIZE, (page - 1) * PAGE_SIZE, q);
    return this.render(
      reply,
      session,
      'admin-accounts',
      '/admin/accounts',
      {
        list,
        q,
        page,
        pages: Math.max(1, Math.ceil(list.total / PAGE_SIZE)),
        pageQuery: pageQuery({ q }),
        returnTo: `/admin/accounts?${new URLSearchParams({ ...(q ? { q } : {}), page: String(page) }).toString()}`,
        maxReason: MAX_REASON_LENGTH,
        ...this.notices(query),
      },
      httpStatus,
    );
  }

  private async renderBlockedHosts(
    reply: FastifyReply,
    session: ActiveSession,
    data: {
      form: { host?: string };
      errors: { host?: string };
      done?: unknown;
      alert?: string;
      host?: string;
      links?: number;
    },
    httpStatus = 200,
  ) {
    const hosts = await this.admin.listBlockedHosts();
    return this.render(
      reply,
      session,
      'admin-blocked-hosts',
      '/admin/blocked-hosts',
      { ...data, hosts, ...this.notices(data) },
      httpStatus,
    );
  }

  private notices(extra: { done?: unknown; alert?: string }): { done?: string; alert?: string } {
    return { done: typeof extra.done === 'string' ? DONE[extra.done] : undefined, alert: extra.alert };
  }

  private render(
    reply: FastifyReply,
    session: ActiveSession,
    view: string,
    current: '/admin' | Section,
    data: object,
    status = 200,
  ) {
    return this.pages.render(reply, view, { ...data, session, sections: SECTIONS, current }, status);
  }
}
