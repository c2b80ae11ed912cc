import { Injectable } from '@nestjs/common';
import { ApiError } from '../common/errors/api-error.js';
import { couldBeCode } from '../links/short-code.js';
import { utcDay } from './click-tally.js';
import { ClicksRepository } from './clicks.repository.js';
import type { LinkClicksDto } from './dto/link-clicks.dto.js';
import { LoggedClicks } from './logged-clicks.js';

/** Referring hosts a link's analytics list. */
export const TOP_REFERRERS = 10;
const DAY_MS = 86_400_000;

/** A link's click analytics, for the API and the dashboard alike. */
@Injectable()
export class ClicksService {
  constructor(
    private readonly repository: ClicksRepository,
    private readonly loggedClicks: LoggedClicks,
  ) {}

  /**
   * The clicks of the account's link `code`: all-time, on each of the last `days` UTC days
   * (today included, oldest first, zeros included) and by referring host over those days.
   * Throws `ApiError.notFound()` for a code that is unknown, deleted, anonymous or another
   * account's. `days` must be 1–366 (validated by the caller).
   */
  async linkClicks(accountId: string, code: string, days: number, now = new Date()): Promise<LinkClicksDto> {
    if (!couldBeCode(code)) throw ApiError.notFound();
    const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    const window = Array.from({ length: days }, (_, i) => utcDay(today - (days - 1 - i) * DAY_MS));
    // On SQLite, logged clicks not folded yet can change the order of the hosts: all are read.
    const unfolded = this.loggedClicks.size > 0;
    const rows = await this.repository.linkClicks(accountId, code, window[0], unfolded ? undefined : TOP_REFERRERS);
    if (!rows) throw ApiError.notFound();

    const perDay = new Map(rows.days.map((row) => [row.day, row.clicks]));
    const botsPerDay = new Map(rows.days.map((row) => [row.day, row.bots]));
    const perHost = new Map(rows.referrers.map((row) => [row.host, row.clicks]));
    let total = rows.link.clicks;
    if (unfolded) {
      for (const [day, tally] of this.loggedClicks.tallyNotIn(rows.link)) {
        total += tally.clicks;
        if (day < window[0]) continue;
        perDay.set(day, (perDay.get(day) ?? 0) + tally.clicks);
        botsPerDay.set(day, (botsPerDay.get(day) ?? 0) + tally.bots);
        for (const [host, clicks] of tally.referrers) perHost.set(host, (perHost.get(host) ?? 0) + clicks);
      }
    }
    const daily = window.map((date) => ({ date, clicks: perDay.get(date) ?? 0, bots: botsPerDay.get(date) ?? 0 }));
    return {
      code: rows.link.code,
      total,
      days: daily,
      bots: daily.reduce((sum, day) => sum + day.bots, 0),
      referrers: [...perHost]
        .filter(([, clicks]) => clicks > 0)
        .sort(([hostA, a], [hostB, b]) => b - a || (hostA < hostB ? -1 : hostA > hostB ? 1 : 0))
        .slice(0, TOP_REFERRERS)
        .map(([host, clicks]) => ({ host, clicks })),
    };
  }
}
