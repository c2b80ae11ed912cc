import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.tokens.js';
import { ClickSink } from './click-sink.js';
import {
  addReferrer,
  MAX_HOSTS_PER_DAY,
  mergeTally,
  OTHER_HOSTS,
  nextUtcMidnight,
  referrerHost,
  totalClicks,
  utcDay,
  type ClickTally,
  type DayTally,
} from './click-tally.js';
import { MAX_USER_AGENT_LENGTH, UserAgentClassifier } from './visitors/user-agent.js';

/**
 * Distinct user agents kept per code and day until a flush labels them; the clicks of any more
 * in the same interval are labelled as they come (through the classifier's cache), so a client
 * inventing a user agent per request cannot grow memory without bound.
 */
export const MAX_AGENTS_PER_DAY = 256;

/**
 * One code's clicks on one day as the redirects saw them: per user agent (its first
 * MAX_USER_AGENT_LENGTH characters; '' when none), the referrer hosts; labelled (bot or person)
 * only when flushed. `labelled` holds the clicks past MAX_AGENTS_PER_DAY, labelled at once.
 */
interface SeenDay {
  clicks: number;
  agents: Map<string, Map<string, number>>;
  /** Created with the first click past MAX_AGENTS_PER_DAY (rare: most days have few agents). */
  labelled?: DayTally;
}

/**
 * Counts redirects in memory, by code, UTC day, bot or person, and referrer host, and writes them in batches
 * (one ClickSink per database kind), so a redirect never waits for (or causes) a database write.
 * Counts are flushed every `CLICK_FLUSH_INTERVAL_MS` and when the application shuts down; the
 * API lags by up to one interval. A flush that fails keeps its counts for the next one; only a
 * crash (or a database that stays down through shutdown) loses the clicks of the last interval.
 *
 * A click's day is taken when it is counted, so a flush that spans midnight puts each click in
 * its own day. Whether it came from a bot is decided from its `User-Agent` when it is flushed,
 * not in the request (`UserAgentClassifier`, cached): the redirect only keeps the header, in
 * memory; it is never written anywhere.
 */
@Injectable()
export class ClickCounter implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ClickCounter.name);
  private pending = new Map<string, Map<string, SeenDay>>();
  /** Counts a flush could not write, for the next one. */
  private unwritten: ClickTally = new Map();
  private readonly agents = new UserAgentClassifier();
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private day = '';
  private dayEndsAt = 0;

  constructor(
    private readonly sink: ClickSink,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Counts one redirect of `code`; `referer` and `userAgent`: the request's `Referer` and
   * `User-Agent` headers, if any.
   */
  record(code: string, referer?: string, userAgent?: string): void {
    const now = Date.now();
    if (now >= this.dayEndsAt) {
      this.day = utcDay(now);
      this.dayEndsAt = nextUtcMidnight(now);
    }
    let days = this.pending.get(code);
    if (days === undefined) {
      days = new Map();
      this.pending.set(code, days);
    }
    let seen = days.get(this.day);
    if (seen === undefined) {
      seen = { clicks: 0, agents: new Map() };
      days.set(this.day, seen);
    }
    seen.clicks++;
    const agent =
      userAgent === undefined
        ? ''
        : userAgent.length > MAX_USER_AGENT_LENGTH
          ? userAgent.slice(0, MAX_USER_AGENT_LENGTH)
          : userAgent;
    const host = referrerHost(referer);
    const hosts = seen.agents.get(agent);
    if (hosts !== undefined) {
      // As many hosts per agent as a day's tally keeps (addReferrer): the rest count as one.
      const counted = hosts.get(host);
      if (counted !== undefined) hosts.set(host, counted + 1);
      else if (hosts.size < MAX_HOSTS_PER_DAY) hosts.set(host, 1);
      else hosts.set(OTHER_HOSTS, (hosts.get(OTHER_HOSTS) ?? 0) + 1);
    } else if (seen.agents.size < MAX_AGENTS_PER_DAY) {
      seen.agents.set(agent, new Map([[host, 1]]));
    } else {
      seen.labelled ??= { clicks: 0, bots: 0, referrers: new Map() };
      this.label(seen.labelled, agent, host, 1);
    }
  }

  /** Clicks of `code` counted but not yet written. */
  pendingClicks(code: string): number {
    let clicks = 0;
    for (const seen of this.pending.get(code)?.values() ?? []) clicks += seen.clicks;
    const unwritten = this.unwritten.get(code);
    return clicks + (unwritten ? totalClicks(unwritten) : 0);
  }

  /** Every click counted but not yet written (the metrics' `shortlink_clicks_pending`). */
  pendingTotal(): number {
    let total = 0;
    for (const days of this.pending.values()) for (const seen of days.values()) total += seen.clicks;
    for (const days of this.unwritten.values()) total += totalClicks(days);
    return total;
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.sink.start();
    this.timer = setInterval(() => void this.flush(), this.config.clickFlushIntervalMs);
    // The timer alone must not keep a process (a CLI, a test) alive.
    this.timer.unref();
  }

  /**
   * Nest calls this after the HTTP server has closed (so no more clicks arrive) and before the
   * global DatabaseModule disconnects: global modules' shutdown hooks run last.
   */
  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
    await this.sink.stop();
    const lost = this.pendingTotal();
    if (lost > 0) this.logger.error(`${lost} clicks could not be written before shutdown and are lost`);
  }

  /**
   * Writes everything counted so far, then lets the sink do its follow-up work (SQLite: a fold
   * when due). Never rejects: failures are logged by the sink and the counts stay pending.
   * Concurrent calls wait for the running flush and then write what came in since.
   */
  async flush(): Promise<void> {
    while (this.running) await this.running;
    if (this.pending.size > 0 || this.unwritten.size > 0) {
      const batch = this.labelPending();
      this.running = this.sink
        .write(batch)
        .then((unwritten) => this.putBack(unwritten))
        .finally(() => {
          this.running = undefined;
        });
      await this.running;
    }
    await this.sink.afterFlush();
  }

  private putBack(unwritten: ClickTally): void {
    if (unwritten.size === 0) return;
    mergeTally(unwritten, this.unwritten);
    this.unwritten = unwritten;
  }

  /** Everything counted so far, labelled, with what earlier flushes could not write; both emptied. */
  private labelPending(): ClickTally {
    const batch: ClickTally = this.unwritten;
    this.unwritten = new Map();
    for (const [code, days] of this.pending) {
      const labelled = new Map<string, DayTally>();
      for (const [day, seen] of days) {
        const tally = seen.labelled ?? { clicks: 0, bots: 0, referrers: new Map() };
        for (const [agent, hosts] of seen.agents) {
          for (const [host, clicks] of hosts) this.label(tally, agent, host, clicks);
        }
        labelled.set(day, tally);
      }
      if (!batch.has(code)) batch.set(code, labelled);
      else mergeTally(batch, new Map([[code, labelled]]));
    }
    this.pending = new Map();
    return batch;
  }

  /** Adds `clicks` clicks of one user agent from one referrer host: a bot's, or a person's. */
  private label(tally: DayTally, agent: string, host: string, clicks: number): void {
    tally.clicks += clicks;
    if (this.agents.classify(agent === '' ? undefined : agent).bot) tally.bots += clicks;
    else addReferrer(tally, host, clicks);
  }
}
