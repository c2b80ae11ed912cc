import { Get, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { CurrentSession, SignedIn } from '../../auth/auth.decorators.js';
import type { ActiveSession } from '../../auth/sessions/sessions.service.js';
import { PageController } from '../../pages/page-controller.decorator.js';
import { Pages } from '../../pages/pages.js';
import { ClicksService } from '../clicks.service.js';
import { DEFAULT_CLICK_DAYS } from '../dto/link-clicks.dto.js';
import { clickChart } from './click-chart.js';
import { overviewTables } from './click-tables.js';

/** The windows the overview offers (days); the API takes any from 1 to 366. */
export const OVERVIEW_WINDOWS = [7, 30, 90, 365] as const;

/** The account's clicks over all its links (`GET /api/clicks` as a page). */
@PageController()
@SignedIn()
export class ClicksPagesController {
  constructor(
    private readonly clicks: ClicksService,
    private readonly pages: Pages,
  ) {}

  @Get('/dashboard/clicks')
  async overview(@Res() reply: FastifyReply, @Query('days') days: unknown, @CurrentSession() session: ActiveSession) {
    // A window the menu does not offer (a hand-edited URL) shows the default rather than an error.
    const window = OVERVIEW_WINDOWS.find((offered) => String(offered) === days) ?? DEFAULT_CLICK_DAYS;
    const clicks = await this.clicks.accountClicks(session.accountId, window);
    return this.pages.render(reply, 'clicks', {
      session,
      clicks,
      window,
      windows: OVERVIEW_WINDOWS,
      chart: clickChart(clicks.days),
      tables: overviewTables(clicks, clicks.total - clicks.bots),
    });
  }
}
