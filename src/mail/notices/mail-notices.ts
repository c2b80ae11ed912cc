import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/config.tokens.js';
import { reportsDigestMail, webhookDisabledMail } from '../mail-messages.js';
import { MailOutbox } from '../mail-outbox.js';
import { MailRepository } from '../mail.repository.js';
import { MailNoticesRepository } from './mail-notices.repository.js';

/** How often the notices look for what happened. */
const CHECK_INTERVAL_MS = 15_000;
/** The admins hear of reports at most this often, in one email listing those since the last. */
export const REPORTS_DIGEST_INTERVAL_MS = 10 * 60_000;
/** Reports one digest lists by name; it counts the rest. */
const REPORTS_LISTED = 50;

/**
 * Emails about what happened, from the database rather than from the code that made it happen,
 * so that a change made by any instance, worker or command is told once: the owners of a webhook
 * endpoint disabled after failing, and the admins of reports (batched: at most one email per
 * REPORTS_DIGEST_INTERVAL_MS). Each kind keeps its last sending in `mail_digests`; one instance
 * wins each turn (MailRepository.takeDigestTurn), and what it tells is stored in the same
 * transaction. A new database starts from its first turn: nothing from before is told (reports
 * from the REPORTS_DIGEST_INTERVAL_MS before it are).
 */
@Injectable()
export class MailNotices implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Mail');
  private timer?: NodeJS.Timeout;
  private round?: Promise<void>;

  constructor(
    private readonly mail: MailRepository,
    private readonly notices: MailNoticesRepository,
    private readonly outbox: MailOutbox,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.outbox.enabled) return;
    this.timer = setInterval(() => {
      this.round ??= this.check().finally(() => (this.round = undefined));
    }, CHECK_INTERVAL_MS);
    this.timer.unref();
    this.round = this.check().finally(() => (this.round = undefined));
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.round;
  }

  /** One look at what happened since the last turns; the tests call it instead of waiting. */
  async check(now = new Date()): Promise<void> {
    try {
      const told = (await this.tellDisabledEndpoints(now)) + (await this.tellReports(now));
      if (told > 0) this.outbox.wake();
    } catch (error) {
      this.logger.warn(`Looking for notices failed: ${(error as Error).message}`);
    }
  }

  private tellDisabledEndpoints(now: Date): Promise<number> {
    const base = this.config.shortBaseUrl;
    return this.mail.takeDigestTurn('webhook_disabled', now, now, now, async (since, until) =>
      (await this.notices.endpointsDisabled(since, until)).map((endpoint) =>
        webhookDisabledMail(endpoint.ownerEmail, base, endpoint),
      ),
    );
  }

  private tellReports(now: Date): Promise<number> {
    const base = this.config.shortBaseUrl;
    const dueIfSentBy = new Date(now.getTime() - REPORTS_DIGEST_INTERVAL_MS);
    // The first turn counts as a sending of one interval ago: the first report after it is told at once.
    return this.mail.takeDigestTurn('reports', now, dueIfSentBy, dueIfSentBy, async (since, until) => {
      const reports = await this.notices.reportsSent(since, until, REPORTS_LISTED);
      if (reports.length === 0) return [];
      const total =
        reports.length < REPORTS_LISTED ? reports.length : await this.notices.countReportsSent(since, until);
      const lines = reports.map((report) => ({
        shortUrl: `${base}/${report.code}`,
        reason: report.reason,
        createdAt: report.createdAt,
      }));
      return (await this.notices.adminEmails()).map((email) => reportsDigestMail(email, base, lines, total));
    });
  }
}
