import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/config.tokens.js';
import { ServiceCounters } from '../../metrics/service-counters.js';
import { OutboxSignal } from '../outbox/outbox-signal.js';
import { WebhookMessageStore, type AttemptRecord, type ClaimedMessage } from './webhook-message-store.js';
import { WebhookSender } from './webhook-sender.js';

/** Attempts under way on one instance at most. */
export const MAX_ATTEMPTS_IN_FLIGHT = 32;
/**
 * Attempts to one endpoint claimed at a time (an endpoint with this many under way gets no more
 * until some end): a slow or dead receiver holds a few of the slots, never all of them.
 */
export const MAX_ATTEMPTS_PER_ENDPOINT = 8;
/** How often the worker looks for due messages when nothing woke it. */
const POLL_INTERVAL_MS = 500;
/**
 * How long after messages were stored the worker claims them: while links are created one after
 * the other, one claim then takes the messages of many (a claim per message cost about as much as
 * the creation itself).
 */
const CLAIM_DELAY_MS = 20;
/** Outcomes of attempts that end within this long of each other are recorded together. */
const RECORD_DELAY_MS = 5;
/** A lease outlives the attempt's own time limit by this much. */
const LEASE_MARGIN_MS = 60_000;
/** An endpoint failing this long with nothing delivered is disabled. */
export const DISABLE_AFTER_MS = 5 * 86_400_000;
/** Delivered and failed messages are kept this long (the deliveries list), then deleted. */
export const KEEP_MESSAGES_MS = 30 * 86_400_000;
const PRUNE_INTERVAL_MS = 3_600_000;
/** At shutdown, attempts under way get this long to finish; the rest are cut off and released. */
const SHUTDOWN_GRACE_MS = 3_000;

/**
 * The delivery worker: claims due messages from the outbox (WebhookMessageStore), sends them
 * (WebhookSender) with bounded concurrency, and records each attempt: delivered on a 2xx,
 * otherwise retried after the next delay of WEBHOOK_RETRY_SCHEDULE, failed after the last.
 *
 * Everything it waits for is I/O: an attempt never blocks the event loop (undici, asynchronous),
 * and the database work is a claim per round and one statement per attempt (SQLite: on the
 * background writer). At most MAX_ATTEMPTS_IN_FLIGHT attempts run at once, at most about
 * MAX_ATTEMPTS_PER_ENDPOINT of them to one endpoint, so one slow receiver slows no other.
 *
 * Nothing is kept in memory that the outbox does not have: after a restart (or on another
 * instance, once a dead one's leases run out) the pending messages are claimed again.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private readonly sender: WebhookSender;
  private readonly inFlight = new Map<string, ClaimedMessage>();
  private readonly perEndpoint = new Map<string, number>();
  private readonly cutOff = new AbortController();
  private running = false;
  private loop?: Promise<void>;
  private wakeUp?: () => void;
  private woken = false;
  private pruneTimer?: NodeJS.Timeout;
  private readonly settled = new Set<Promise<void>>();

  constructor(
    private readonly store: WebhookMessageStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    signal: OutboxSignal,
    private readonly counters: ServiceCounters,
  ) {
    this.sender = new WebhookSender(config.webhooks.timeoutMs, config.webhooks.allowPrivate, this.cutOff.signal);
    signal.listen(() => this.wakeSoon());
  }

  onApplicationBootstrap(): void {
    this.running = true;
    this.loop = this.run();
    this.pruneTimer = setInterval(() => void this.prune(), PRUNE_INTERVAL_MS);
    this.pruneTimer.unref();
  }

  /**
   * Stops claiming, gives the attempts under way SHUTDOWN_GRACE_MS to finish (recorded as
   * usual), then cuts the others off and releases their messages for the next instance. Runs
   * before the global DatabaseModule closes the connections.
   */
  async onApplicationShutdown(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    clearInterval(this.pruneTimer);
    clearTimeout(this.wakeTimer);
    this.wake();
    await this.loop;
    const all = Promise.all([...this.settled]);
    const finished = await Promise.race([all.then(() => true), sleep(SHUTDOWN_GRACE_MS).then(() => false)]);
    if (!finished) {
      this.cutOff.abort();
      await all;
    }
    await this.sender.close();
  }

  /** Looks for due messages now (an attempt ended, or shutdown). */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  private wakeTimer?: NodeJS.Timeout;

  /** Looks for due messages shortly (messages were just stored here): see CLAIM_DELAY_MS. */
  private wakeSoon(): void {
    this.wakeTimer ??= setTimeout(() => {
      this.wakeTimer = undefined;
      this.wake();
    }, CLAIM_DELAY_MS);
  }

  private recording: Array<{ attempt: AttemptRecord; done: () => void }> = [];
  private recordTimer?: NodeJS.Timeout;

  /**
   * Records an attempt's outcome together with those that end within RECORD_DELAY_MS (one
   * transaction for all of them); resolves once they are written (or failed to be: logged, and
   * the lease makes the message due again).
   */
  private record(attempt: AttemptRecord): Promise<void> {
    return new Promise((resolve) => {
      this.recording.push({ attempt, done: resolve });
      this.recordTimer ??= setTimeout(() => void this.writeRecords(), RECORD_DELAY_MS);
    });
  }

  private async writeRecords(): Promise<void> {
    this.recordTimer = undefined;
    const batch = this.recording;
    this.recording = [];
    try {
      await this.store.record(batch.map((entry) => entry.attempt));
    } catch (error) {
      // The leases run out and the messages are attempted again: at least once, never lost.
      this.logger.error(`Could not record ${batch.length} webhook attempt(s): ${String(error)}`);
    }
    for (const entry of batch) entry.done();
  }

  /** Attempts under way on this instance (the metrics, the specs). */
  get attemptsInFlight(): number {
    return this.inFlight.size;
  }

  /** Attempts this instance has made (and recorded) since it started. */
  attemptsMade = 0;

  private async run(): Promise<void> {
    while (this.running) {
      this.woken = false;
      let claimed = 0;
      const free = MAX_ATTEMPTS_IN_FLIGHT - this.inFlight.size;
      if (free > 0) {
        try {
          claimed = await this.claimAndStart(free);
        } catch (error) {
          this.logger.warn(`Could not claim webhook messages: ${String(error)}`);
        }
      }
      // More may be due at once: claim again while there was something to claim and room for it.
      if (claimed > 0 && this.inFlight.size < MAX_ATTEMPTS_IN_FLIGHT) continue;
      if (!this.woken && this.running) await this.idle();
    }
  }

  private idle(): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeUp = undefined;
        resolve();
      };
      const timer = setTimeout(done, POLL_INTERVAL_MS);
      timer.unref();
      this.wakeUp = done;
    });
  }

  private async claimAndStart(free: number): Promise<number> {
    const now = new Date();
    const busy = [...this.perEndpoint].filter(([, n]) => n >= MAX_ATTEMPTS_PER_ENDPOINT).map(([id]) => id);
    const messages = await this.store.claim({
      now,
      limit: free,
      perEndpoint: MAX_ATTEMPTS_PER_ENDPOINT,
      busyEndpoints: busy,
      claimedUntil: new Date(now.getTime() + this.config.webhooks.timeoutMs + LEASE_MARGIN_MS),
    });
    for (const message of messages) this.start(message);
    return messages.length;
  }

  private start(message: ClaimedMessage): void {
    this.inFlight.set(message.id, message);
    this.perEndpoint.set(message.endpointId, (this.perEndpoint.get(message.endpointId) ?? 0) + 1);
    const attempt = this.attempt(message)
      .catch((error: unknown) => {
        // Never expected (attempt records its own failures); the lease runs out and it is tried again.
        this.logger.error(`Webhook message ${message.messageId} could not be attempted: ${String(error)}`);
      })
      .finally(() => {
        this.inFlight.delete(message.id);
        const left = (this.perEndpoint.get(message.endpointId) ?? 1) - 1;
        if (left > 0) this.perEndpoint.set(message.endpointId, left);
        else this.perEndpoint.delete(message.endpointId);
        this.settled.delete(attempt);
        this.wake();
      });
    this.settled.add(attempt);
  }

  private async attempt(message: ClaimedMessage): Promise<void> {
    const outcome = await this.sender.send(message);
    if (outcome.cutOff) {
      await this.store.release([message.id]).catch((error: unknown) => {
        this.logger.warn(`Could not release webhook message ${message.messageId}: ${String(error)}`);
      });
      return;
    }
    this.attemptsMade++;
    const at = new Date();
    const schedule = this.config.webhooks.retryScheduleSeconds;
    const delay = outcome.delivered ? undefined : schedule[message.attempts];
    if (outcome.delivered) this.counters.webhooksDelivered++;
    else if (delay === undefined) this.counters.webhooksFailed++;
    else this.counters.webhooksRetried++;
    if (!outcome.delivered) {
      this.logger.log(
        `Webhook message ${message.messageId} to ${message.url}: attempt ${message.attempts + 1} failed (${outcome.reason})` +
          (delay === undefined ? '; no more attempts' : `; next in ${delay} s`),
      );
    }
    await this.record({
      id: message.id,
      endpointId: message.endpointId,
      at,
      delivered: outcome.delivered,
      responseStatus: outcome.status,
      nextAttemptAt: delay === undefined ? null : new Date(at.getTime() + delay * 1000),
      disableIfFailingSince: new Date(at.getTime() - DISABLE_AFTER_MS),
    });
  }

  private async prune(): Promise<void> {
    try {
      await this.store.prune(new Date(Date.now() - KEEP_MESSAGES_MS));
    } catch (error) {
      this.logger.warn(`Could not delete old webhook messages: ${String(error)}`);
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
