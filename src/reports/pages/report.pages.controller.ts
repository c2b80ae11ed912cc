import { Get, Post, Query, Req, Res } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentSession, Public } from '../../auth/auth.decorators.js';
import type { ActiveSession } from '../../auth/sessions/sessions.service.js';
import { PageController } from '../../pages/page-controller.decorator.js';
import { field, formErrors, Pages, type Form } from '../../pages/pages.js';
import {
  MAX_REPORT_DETAILS_LENGTH,
  MAX_REPORT_SHORT_URL_LENGTH,
  REPORT_REASONS,
  ReportsService,
  type ReportReason,
} from '../reports.service.js';
import { ReportLimits } from './report-limits.js';

/** The form's fields as the page labels them in messages; '' is the form as a whole. */
const REPORT_FIELDS = { short_url: 'The short URL', reason: 'The reason', details: 'The details', email: 'The email' };
/** What the options of "Reason" say. */
const REASON_LABELS: Record<ReportReason, string> = {
  phishing: 'Phishing: it imitates a site to steal passwords or money',
  malware: 'Malware: it downloads harmful software',
  spam: 'Spam: it was sent unasked, in bulk',
  other: 'Other: say what in the details',
};
/**
 * Fields are read whole up to this (the form body is limited to 64 KiB anyway) and measured by
 * the service, which refuses what is too long with the form again: never cut silently.
 */
const FIELD_READ_LIMIT = 70_000;

/** `/report`: anyone may report a short link to the instance's admins (phishing, malware, spam). */
@PageController()
@Public()
export class ReportPagesController {
  constructor(
    private readonly reports: ReportsService,
    private readonly limits: ReportLimits,
    private readonly pages: Pages,
  ) {}

  @Get('/report')
  reportPage(
    @Res() reply: FastifyReply,
    @Query('url') url: unknown,
    @Query('sent') sent: unknown,
    @CurrentSession() session: ActiveSession | null,
  ) {
    // `?url=` fills the field in (a link from a page that shows a short URL); anything odd is ignored.
    const shortUrl = typeof url === 'string' && url.length <= MAX_REPORT_SHORT_URL_LENGTH ? url : '';
    return this.render(reply, session, { form: { short_url: shortUrl }, errors: {}, sent: sent === '1' });
  }

  @Post('/report')
  async sendReport(
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
    @CurrentSession() session: ActiveSession | null,
  ) {
    const body = request.body as Form;
    const form = {
      short_url: field(body, 'short_url', FIELD_READ_LIMIT),
      reason: field(body, 'reason', 100),
      details: field(body, 'details', FIELD_READ_LIMIT),
      email: field(body, 'email', FIELD_READ_LIMIT),
    };
    const wait = await this.limits.count(request.ip);
    if (wait !== null) {
      void reply.header('Retry-After', String(wait));
      const minutes = Math.max(1, Math.ceil(wait / 60));
      const errors = {
        form: `Too many reports from your network. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`,
      };
      return this.render(reply, session, { form, errors }, 429);
    }
    try {
      await this.reports.submit(form);
      return reply.redirect('/report?sent=1', 303);
    } catch (error) {
      return this.render(reply, session, { form, errors: formErrors(error, REPORT_FIELDS) }, 400);
    }
  }

  private render(reply: FastifyReply, session: ActiveSession | null, data: object, status = 200) {
    return this.pages.render(
      reply,
      'report',
      {
        ...data,
        session,
        reasons: REPORT_REASONS.map((value) => ({ value, label: REASON_LABELS[value] })),
        maxDetails: MAX_REPORT_DETAILS_LENGTH,
        maxShortUrl: MAX_REPORT_SHORT_URL_LENGTH,
      },
      status,
    );
  }
}
