import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.tokens.js';
import { ClickSink } from './click-sink.js';
import {
  addLabel,
  addReferrer,
  emptyDay,
  labelKey,
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
import { MAX_USER_AGENT_LENGTH } from './visitors/user-agent.js';
import { VisitorLabels } from './visitors/visitor-labels.service.js';

/**
 * Distinct user agents kept per code and day until a flush labels them; the clicks of any more
 * in the same interval are labelled as they come (through the classifier's cache), so a client
 * inventing a user agent per request cannot grow memory without bound.
 */
export const MAX_AGENTS_PER_DAY = 256;
/**
 * Distinct clients (see VisitorLabels.clientKey) kept per user agent of a code and day until a
 * flush; the country of any more is looked up as they come (through the lookup's cache).
 */
export const MAX_CLIENTS_PER_AGENT = 256;

/** A code's clicks written by one flush: all of them, and of those the bots'. */
export interface FlushedClicks {
  clicks: number;
  bots: number;
}

/**
 * Told after each flush what it wrote (once per flush, never per click): `written()` computes
 * each code's clicks, only when asked; `from` is when the previous flush began, so every click
 * of this one was counted after it. The flush waits for what it returns (at shutdown, its work
 * is done before the database closes); a failure is logged, never the flush's.
 */
export type FlushListener = (written: () => Map<string, FlushedClicks>, from: Date) => Promise<void> | void;

/** One user agent's clicks of one code on one day, by referrer host and by client. */
interface SeenAgent {
  clicks: number;
  hosts: Map<string, number>;
  clients: Map<string, number>;
  /** Clicks by country of the clients past MAX_CLIENTS_PER_AGENT, looked up at once. */
  countries?: Map<string, number>;
}

/**
 * One code's clicks on one day as the redirects saw them: per user agent (its first
 * MAX_USER_AGENT_LENGTH characters; '' when none), the referrer hosts and clients; labelled (bot
 * or person; country, device, browser, system) only when flushed. `labelled` holds the clicks
 * past MAX_AGENTS_PER_DAY, labelled at once.
 */
interface SeenDay {
  clicks: number;
  agents: Map<string, SeenAgent>;
  /** Created with the first click past MAX_AGENTS_PER_DAY (rare: most days have few agents). */
  labelled?: DayTally;
}

/**
 * Counts redirects in memory, by code, UTC day, bot or person, referrer host and visitor label, and writes them in batches
 * (one ClickSink per database kind), so a redirect never waits for (or causes) a database write.
 * Counts are flushed every `CLICK_FLUSH_INTERVAL_MS` and when the application shuts down; the
 * API lags by up to one interval. A flush that fails keeps its counts for the next one; only a
 * crash (or a database that stays down through shutdown) loses the clicks of the last interval.
 *
 * A click's day is taken when it is counted, so a flush that spans midnight puts each click in
 * its own day. Whether it came from a bot, and a person's country, device, browser and system,
 * are decided when it is flushed, not in the request (VisitorLabels, cached): the redirect only
 * keeps its `User-Agent` and its client's address, in memory; neither is written anywhere.
 */
@Injectable()
export class ClickCounter implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ClickCounter.name);
  private pending = new Map<string, Map<string, SeenDay>>();
  /** Counts a flush could not write, for the next one. */
  private unwritten: ClickTally = new Map();
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private day = '';
  private dayEndsAt = 0;
  private readonly flushListeners: FlushListener[] = [];
  /** When the last flush began: the clicks of the next one were counted after it. */
  private lastFlushAt = new Date();

  constructor(
    private readonly sink: ClickSink,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly visitors: VisitorLabels = new VisitorLabels(config),
  ) {}

  /**
   * Counts one redirect of `code`; `referer`, `userAgent` and `forwardedFor`: the request's
   * `Referer`, `User-Agent` and (first) `X-Forwarded-For` headers, if any; `remoteAddress`: the
   * socket's peer address.
   */
  record(code: string, referer?: string, userAgent?: string, forwardedFor?: string, remoteAddress?: string): void {
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
    const client = this.visitors.clientKey(forwardedFor, remoteAddress);
    const agent =
      userAgent === undefined
        ? ''
        : userAgent.length > MAX_USER_AGENT_LENGTH
          ? userAgent.slice(0, MAX_USER_AGENT_LENGTH)
          : userAgent;
    const host = referrerHost(referer);
    const seenAgent = seen.agents.get(agent);
    if (seenAgent !== undefined) {
      seenAgent.clicks++;
      const { hosts, clients } = seenAgent;
      // As many hosts per agent as a day's tally keeps (addReferrer): the rest count as one.
      const counted = hosts.get(host);
      if (counted !== undefined) hosts.set(host, counted + 1);
      else if (hosts.size < MAX_HOSTS_PER_DAY) hosts.set(host, 1);
      else hosts.set(OTHER_HOSTS, (hosts.get(OTHER_HOSTS) ?? 0) + 1);
      const fromClient = clients.get(client);
      if (fromClient !== undefined) clients.set(client, fromClient + 1);
      else if (clients.size < MAX_CLIENTS_PER_AGENT) clients.set(client, 1);
      else {
        seenAgent.countries ??= new Map();
        const country = this.visitors.countryOfClient(client);
        seenAgent.countries.set(country, (seenAgent.countries.get(country) ?? 0) + 1);
      }
    } else if (seen.agents.size < MAX_AGENTS_PER_DAY) {
      seen.agents.set(agent, { clicks: 1, hosts: new Map([[host, 1]]), clients: new Map([[client, 1]]) });
    } else {
      seen.labelled ??= emptyDay();
      this.label(seen.labelled, agent, { clicks: 1, hosts: new Map([[host, 1]]), clients: new Map([[client, 1]]) });
    }
  }

  /** Calls `listener` after every flush that wrote clicks (see FlushListener). */
  onFlushed(listener: FlushListener): void {
    this.flushListeners.push(listener);
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
    // Every flush, empty or not: a batch's clicks were all counted after the flush before it.
    const from = this.lastFlushAt;
    this.lastFlushAt = new Date();
    if (this.pending.size > 0 || this.unwritten.size > 0) {
      const batch = this.labelPending();
      this.running = this.sink
        .write(batch)
        .then((unwritten) => {
          const told = this.tellListeners(batch, unwritten, from);
          this.putBack(unwritten);
          return told;
        })
        .finally(() => {
          this.running = undefined;
        });
      await this.running;
    }
    await this.sink.afterFlush();
  }

  private async tellListeners(batch: ClickTally, unwritten: ClickTally, from: Date): Promise<void> {
    if (this.flushListeners.length === 0 || unwritten.size === batch.size) return;
    // Before putBack: it merges what is still pending into `unwritten`.
    const notWritten = new Set(unwritten.keys());
    let written: Map<string, FlushedClicks> | undefined;
    const compute = () => {
      if (written) return written;
      written = new Map();
      for (const [code, days] of batch) {
        if (notWritten.has(code)) continue;
        let clicks = 0;
        let bots = 0;
        for (const day of days.values()) {
          clicks += day.clicks;
          bots += day.bots;
        }
        if (clicks > 0) written.set(code, { clicks, bots });
      }
      return written;
    };
    await Promise.all(
      this.flushListeners.map(async (listener) => {
        try {
          await listener(compute, from);
        } catch (error) {
          this.logger.error(`A click flush listener failed: ${String(error)}`);
        }
      }),
    );
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
        const tally = seen.labelled ?? emptyDay();
        for (const [agent, seenAgent] of seen.agents) this.label(tally, agent, seenAgent);
        labelled.set(day, tally);
      }
      if (!batch.has(code)) batch.set(code, labelled);
      else mergeTally(batch, new Map([[code, labelled]]));
    }
    this.pending = new Map();
    return batch;
  }

  /** Adds the clicks of one user agent: a bot's, or a person's by referrer host and visitor label. */
  private label(tally: DayTally, agent: string, seen: SeenAgent): void {
    tally.clicks += seen.clicks;
    const visitor = this.visitors.classify(agent === '' ? undefined : agent);
    if (visitor.bot) {
      tally.bots += seen.clicks;
      return;
    }
    for (const [host, clicks] of seen.hosts) addReferrer(tally, host, clicks);
    addLabel(tally, labelKey('device', visitor.device), seen.clicks);
    addLabel(tally, labelKey('browser', visitor.browser), seen.clicks);
    addLabel(tally, labelKey('os', visitor.os), seen.clicks);
    for (const [client, clicks] of seen.clients) {
      addLabel(tally, labelKey('country', this.visitors.countryOfClient(client)), clicks);
    }
    for (const [country, clicks] of seen.countries ?? []) addLabel(tally, labelKey('country', country), clicks);
  }
}
