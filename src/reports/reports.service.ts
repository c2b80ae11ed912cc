import { Inject, Injectable } from '@nestjs/common';
import { checkEmail } from '../accounts/email-address.js';
import { ApiError, type FieldError } from '../common/errors/api-error.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.tokens.js';
import { LinkModeration } from '../links/moderation/link-moderation.service.js';
import { couldBeCode } from '../links/short-code.js';
import { ReportsRepository, type ReportRecord } from './reports.repository.js';

/** Why a link is reported: the options of the report form's "Reason". */
export const REPORT_REASONS = ['phishing', 'malware', 'spam', 'other'] as const;
export type ReportReason = (typeof REPORT_REASONS)[number];

/** Where reports stand: waiting for an admin, the link disabled, or nothing to do. */
export const REPORT_STATUSES = ['open', 'resolved', 'dismissed'] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];

export const MAX_REPORT_DETAILS_LENGTH = 2000;
export const MAX_REPORT_SHORT_URL_LENGTH = 2048;

/** What a reporter sends (the /report form's fields). */
export interface ReportInput {
  short_url: string;
  reason: string;
  details: string;
  email: string;
}

/** A report as the admins read it (`GET /api/admin/reports`). */
export interface ReportView {
  id: string;
  short_url: string;
  code: string;
  reason: string;
  details: string;
  created_at: string;
  status: string;
}

/** …and on the admin pages, with who sent it and who settled it. */
export interface AdminReportView extends ReportView {
  email: string | null;
  resolved_at: string | null;
  resolved_by: string | null;
}

export function isReportStatus(value: unknown): value is ReportStatus {
  return typeof value === 'string' && (REPORT_STATUSES as readonly string[]).includes(value);
}

/**
 * Reports of short links from the public /report page: checked, kept for the admins, settled
 * when an admin disables the link or dismisses them.
 */
@Injectable()
export class ReportsService {
  constructor(
    private readonly reports: ReportsRepository,
    private readonly links: LinkModeration,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Files a report; every field's problem at once (`validation_failed`, one message per field,
   * worded for the form). The short URL must be one of this service's links that exists.
   */
  async submit(input: ReportInput): Promise<ReportView> {
    const problems: FieldError[] = [];
    const problem = (field: string, message: string) => problems.push({ field, message });

    const shortUrl = input.short_url.trim();
    let code: string | null = null;
    if (shortUrl === '') problem('short_url', 'Enter the short URL you want to report.');
    else if (shortUrl.length > MAX_REPORT_SHORT_URL_LENGTH) {
      problem('short_url', `Use at most ${MAX_REPORT_SHORT_URL_LENGTH} characters for the short URL.`);
    } else {
      code = this.codeOf(shortUrl);
      if (code === null) {
        problem('short_url', `Enter a short URL of this service, like ${this.config.shortBaseUrl}/Ab3dE9x.`);
      } else if (!(await this.exists(code))) {
        problem('short_url', 'There is no such short link here. Check the address and try again.');
      }
    }
    const reason = input.reason;
    if (!(REPORT_REASONS as readonly string[]).includes(reason)) {
      problem('reason', `Choose a reason: ${REPORT_REASONS.join(', ')}.`);
    }
    const details = input.details.trim();
    if (details.length > MAX_REPORT_DETAILS_LENGTH) {
      problem(
        'details',
        `Use at most ${MAX_REPORT_DETAILS_LENGTH} characters for the details (you used ${details.length}).`,
      );
    }
    // The optional contact address follows the rule of every address (email-address.ts).
    const typed = input.email.trim();
    const checked = typed === '' ? null : checkEmail(typed);
    if (checked && !checked.ok) {
      const shape = checked.reason === 'shape';
      problem('email', shape ? 'Enter an email address like name@example.com, or leave it empty.' : checked.problem);
    }
    const email = checked?.ok ? checked.email : '';
    if (problems.length > 0 || code === null) throw ApiError.validationFailed('The report was not sent', problems);

    const report = await this.reports.add({ code, reason, details, email: email === '' ? null : email });
    return this.toView(report);
  }

  /** One page of the reports with a status, newest first. */
  async list(status: ReportStatus, limit: number, offset: number): Promise<{ data: AdminReportView[]; total: number }> {
    const { reports, total } = await this.reports.listByStatus(status, limit, offset);
    return { data: reports.map((report) => this.toAdminView(report)), total };
  }

  async get(id: string): Promise<AdminReportView> {
    const report = isUuid(id) ? await this.reports.find(id) : null;
    if (!report) throw ApiError.notFound('No such report');
    return this.toAdminView(report);
  }

  /** An admin saw nothing to do: the report is closed. Only an open report can be dismissed. */
  async dismiss(id: string, by: string): Promise<AdminReportView> {
    const report = await this.get(id);
    if (!(await this.reports.settle(report.id, 'dismissed', by, new Date()))) {
      throw ApiError.adminConflict(`This report is ${report.status} already`);
    }
    return this.get(id);
  }

  /** The link was disabled: its open reports are resolved. */
  async resolveOpenOf(code: string, by: string): Promise<void> {
    await this.reports.resolveOpenOfCode(code, by, new Date());
  }

  /**
   * The code a reporter's short URL names: a code alone, or a URL (scheme optional) on this
   * service's host whose path is the code. Null for anything else.
   */
  private codeOf(text: string): string | null {
    if (couldBeCode(text)) return text;
    const candidate = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `https://${text}`;
    if (!URL.canParse(candidate)) return null;
    const url = new URL(candidate);
    const base = new URL(this.config.shortBaseUrl);
    if (url.hostname.replace(/\.+$/, '') !== base.hostname) return null;
    const prefix = base.pathname.replace(/\/+$/, '');
    if (!url.pathname.startsWith(`${prefix}/`)) return null;
    const code = url.pathname.slice(prefix.length + 1);
    return couldBeCode(code) ? code : null;
  }

  private async exists(code: string): Promise<boolean> {
    try {
      await this.links.getForAdmin(code);
      return true;
    } catch (error) {
      if (error instanceof ApiError && error.errorName === 'not_found') return false;
      throw error;
    }
  }

  private toView(report: ReportRecord): ReportView {
    return {
      id: report.id,
      short_url: `${this.config.shortBaseUrl}/${report.code}`,
      code: report.code,
      reason: report.reason,
      details: report.details,
      created_at: report.createdAt.toISOString(),
      status: report.status,
    };
  }

  private toAdminView(report: ReportRecord): AdminReportView {
    return {
      ...this.toView(report),
      email: report.email,
      resolved_at: report.resolvedAt?.toISOString() ?? null,
      resolved_by: report.resolvedBy,
    };
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function isUuid(value: string): boolean {
  return UUID.test(value);
}
