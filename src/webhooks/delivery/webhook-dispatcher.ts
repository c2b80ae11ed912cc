import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PollLoop } from '../../common/poll-loop.js';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/config.tokens.js';
import { ServiceCounters } from '../../metrics/service-counters.js';
import { OutboxSignal } from '../outbox/outbox-signal.js';
import { DELIVERY_OPTIONS, type DeliveryOptions } from './delivery-options.js';
import { MAX_CLAIM, WebhookMessageStore, type AttemptRecord, type ClaimedMessage } from './webhook-message-store.js';
import { WebhookSender } from './webhook-sender.js';

/** Attempts under way on one instance at most. */
export const MAX_ATTEMPTS_IN_FLIGHT = 32;
/**
 * Attempts to one endpoint under way at a time: a slow or dead receiver holds a few of the
 * slots, never all of them.
 */
export const MAX_ATTEMPTS_PER_ENDPOINT = 8;
/**
 * Messages of one endpoint a claim takes at most. They are claimed ahead of their attempts and
 * queued here, so that a run of messages to one endpoint costs a claim per this many rather than
 * one per attempt (a claim per message cost more than sending it).
 */
export const CLAIM_PER_ENDPOINT = 32;
/** An endpoint with fewer messages queued than this is claimed for again, when more may be due. */
const REFILL_BELOW = MAX_ATTEMPTS_PER_ENDPOINT;
/** Messages held (queued or under way) on one instance at most. */
const MAX_HELD = 256;
/**
 * How many attempts' time limits a lease covers: a message claimed for an endpoint that has up to
 * REFILL_BELOW queued and MAX_ATTEMPTS_PER_ENDPOINT under way waits for at most this many
 * attempts in its slot, its own included.
 */
const LEASE_ATTEMPTS = Math.ceil(
  (REFILL_BELOW + MAX_ATTEMPTS_PER_ENDPOINT + CLAIM_PER_ENDPOINT) / MAX_ATTEMPTS_PER_ENDPOINT,
);
/**
 * How long after messages were stored the worker claims them: while links are created one after
 * the other, one claim then takes the messages of many (a claim per message cost about as much as
 * the creation itself).
 */
const CLAIM_DELAY_MS = 20;
/** A lease outlives the attempts it covers by this much. */
const LEASE_MARGIN_MS = 60_000;
/**
 * A queued message is attempted only while its lease has at least this long left beyond the
 * attempt's own time limit (otherwise it is released: another instance could take it meanwhile).
 */
const START_MARGIN_MS = 30_000;
/** An endpoint failing this long with nothing delivered is disabled. */
export const DISABLE_AFTER_MS = 5 * 86_400_000;
/** Delivered and failed messages are kept this long (the deliveries list), then deleted. */
export const KEEP_MESSAGES_MS = 30 * 86_400_000;
const PRUNE_INTERVAL_MS = 3_600_000;
/** At shutdown, attempts under way get this long to finish; the rest are cut off and released. */
const SHUTDOWN_GRACE_MS = 3_000;

/** A claimed message, and when its lease ends (ms since the epoch). */
interface HeldMessage {
  message: ClaimedMessage;
  leaseEndsAt: number;
}

/** This instance's messages of one endpoint: claimed and waiting, and under way. */
interface Lane {
  queue: HeldMessage[];
  active: number;
  /** The last claim took all it could of this endpoint's: more may be due. */
  more: boolean;
}

/**
 * The delivery worker: claims due messages from the outbox (WebhookMessageStore), sends them
 * (WebhookSender) with bounded concurrency, and records each attempt: delivered on a 2xx,
 * otherwise retried after the next delay of WEBHOOK_RETRY_SCHEDULE, failed after the last.
 *
 * Everything it waits for is I/O: an attempt never blocks the event loop (undici, asynchronous),
 * and the database work is a claim per CLAIM_PER_ENDPOINT messages of an endpoint and one
 * transaction per batch of attempts that end together (SQLite: on the background writer). Claimed
 * messages wait in a queue per endpoint (a lane); at most MAX_ATTEMPTS_IN_FLIGHT attempts run at
 * once, at most MAX_ATTEMPTS_PER_ENDPOINT of them to one endpoint, so one slow receiver slows no
 * other. A lease covers the wait in the queue (LEASE_ATTEMPTS attempts' time limits).
 *
 * Nothing is kept in memory that the outbox does not have: after a restart (or on another
 * instance, once a dead one's leases run out) the pending messages are claimed again.
 */
@Injectable()
export class WebhookDispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Webhooks');
  private readonly sender: WebhookSender;
  private readonly lanes = new Map<string, Lane>();
  /** Messages in the lanes' queues and under way. */
  private held = 0;
  private inFlight = 0;
  private readonly cutOff = new AbortController();
  private readonly loop: PollLoop;
  private pruneTimer?: NodeJS.Timeout;
  private readonly settled = new Set<Promise<void>>();

  constructor(
    private readonly store: WebhookMessageStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    signal: OutboxSignal,
    private readonly counters: ServiceCounters,
    @Inject(DELIVERY_OPTIONS) private readonly options: DeliveryOptions,
  ) {
    this.sender = new WebhookSender(config.webhooks.timeoutMs, config.webhooks.allowPrivate, this.cutOff.signal);
    this.loop = new PollLoop(() => this.round(), options.pollIntervalMs);
    signal.listen({ stored: () => this.wakeSoon(), endpointRemoved: (id) => this.forgetEndpoint(id) });
  }

  onApplicationBootstrap(): void {
    this.loop.start();
    this.pruneTimer = setInterval(() => void this.prune(), PRUNE_INTERVAL_MS);
    this.pruneTimer.unref();
  }

  /**
   * Stops claiming and releases the queued messages, gives the attempts under way
   * SHUTDOWN_GRACE_MS to finish (recorded as usual), then cuts the others off and releases their
   * messages for the next instance. Runs before the global DatabaseModule closes the connections.
   */
  async onApplicationShutdown(): Promise<void> {
    if (!this.loop.running) return;
    clearInterval(this.pruneTimer);
    clearTimeout(this.wakeTimer);
    await this.loop.stop();
    const queued = [...this.lanes.values()].flatMap((lane) => this.dropQueue(lane));
    await this.release(queued);
    const all = Promise.all([...this.settled]);
    const finished = await Promise.race([all.then(() => true), sleep(SHUTDOWN_GRACE_MS).then(() => false)]);
    if (!finished) {
      this.cutOff.abort();
      await all;
    }
    await this.sender.close();
  }

  /** Looks for due messages now (shutdown, an endpoint running low, messages stored a moment ago). */
  wake(): void {
    this.loop.wake();
  }

  /**
   * Attempts nothing more to the endpoint (deleted on this instance): its queued messages are
   * dropped (the outbox's are gone with it). Attempts under way end as they do.
   */
  forgetEndpoint(endpointId: string): void {
    const lane = this.lanes.get(endpointId);
    if (lane) this.dropQueue(lane);
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
   * Records an attempt's outcome together with those that end within `recordDelayMs` (one
   * transaction for all of them); resolves once they are written (or failed to be: logged, and
   * the lease makes the message due again).
   */
  private record(attempt: AttemptRecord): Promise<void> {
    return new Promise((resolve) => {
      this.recording.push({ attempt, done: resolve });
      this.recordTimer ??= setTimeout(() => void this.writeRecords(), this.options.recordDelayMs);
    });
  }

  private async writeRecords(): Promise<void> {
    this.recordTimer = undefined;
    const batch = this.recording;
    this.recording = [];
    try {
      // Deleted or disabled meanwhile: what is queued for them is not attempted (their messages
      // are gone or failed).
      const gone = await this.store.record(batch.map((entry) => entry.attempt));
      for (const endpointId of gone) this.forgetEndpoint(endpointId);
    } catch (error) {
      // The leases run out and the messages are attempted again: at least once, never lost.
      this.logger.error(`Could not record ${batch.length} webhook attempt(s): ${String(error)}`);
    }
    for (const entry of batch) entry.done();
  }

  /** Attempts under way on this instance (the metrics, the specs). */
  get attemptsInFlight(): number {
    return this.inFlight;
  }

  /** Attempts this instance has made (and recorded) since it started. */
  attemptsMade = 0;

  /** One round of the loop: a claim into the lanes; again at once when it took all it had room for. */
  private async round(): Promise<boolean> {
    const room = MAX_HELD - this.held;
    if (room <= 0) return false;
    try {
      return await this.claimAndQueue(room);
    } catch (error) {
      this.logger.warn(`Could not claim webhook messages: ${String(error)}`);
      return false;
    }
  }

  /** One claim into the lanes; whether it took as many as it had room for. */
  private async claimAndQueue(room: number): Promise<boolean> {
    const now = new Date();
    const busy = [...this.lanes].filter(([, lane]) => lane.queue.length >= REFILL_BELOW).map(([id]) => id);
    const leaseEndsAt = now.getTime() + LEASE_ATTEMPTS * this.config.webhooks.timeoutMs + LEASE_MARGIN_MS;
    const messages = await this.store.claim({
      now,
      limit: Math.min(room, MAX_CLAIM),
      perEndpoint: CLAIM_PER_ENDPOINT,
      busyEndpoints: busy,
      claimedUntil: new Date(leaseEndsAt),
    });
    const taken = new Map<string, number>();
    for (const message of messages) {
      const lane = this.laneOf(message.endpointId);
      lane.queue.push({ message, leaseEndsAt });
      this.held++;
      taken.set(message.endpointId, (taken.get(message.endpointId) ?? 0) + 1);
    }
    // An endpoint the claim could have taken more of, but did not, has nothing more due now.
    for (const [endpointId, lane] of this.lanes) {
      if (!busy.includes(endpointId)) lane.more = (taken.get(endpointId) ?? 0) >= CLAIM_PER_ENDPOINT;
    }
    if (!this.loop.running) {
      // Shutdown began during the claim: onApplicationShutdown releases what the lanes hold.
      return false;
    }
    this.pump();
    return messages.length >= Math.min(room, MAX_CLAIM);
  }

  private laneOf(endpointId: string): Lane {
    let lane = this.lanes.get(endpointId);
    if (!lane) {
      lane = { queue: [], active: 0, more: false };
      this.lanes.set(endpointId, lane);
    }
    return lane;
  }

  /** Empties a lane's queue; the messages that were in it. */
  private dropQueue(lane: Lane): string[] {
    const ids = lane.queue.map((held) => held.message.id);
    this.held -= lane.queue.length;
    lane.queue = [];
    lane.more = false;
    return ids;
  }

  /**
   * Starts queued messages while there are free slots, one per endpoint in turn; asks for a claim
   * when an endpoint that may have more due runs low. A message whose lease has too little left
   * is released instead (see START_MARGIN_MS).
   */
  private pump(): void {
    const stale: string[] = [];
    const now = Date.now();
    const needed = this.config.webhooks.timeoutMs + START_MARGIN_MS;
    let progress = true;
    while (progress && this.inFlight < MAX_ATTEMPTS_IN_FLIGHT && this.loop.running) {
      progress = false;
      for (const lane of this.lanes.values()) {
        if (this.inFlight >= MAX_ATTEMPTS_IN_FLIGHT) break;
        if (lane.active >= MAX_ATTEMPTS_PER_ENDPOINT) continue;
        const next = lane.queue.shift();
        if (!next) continue;
        progress = true;
        if (next.leaseEndsAt - now < needed) {
          this.held--;
          stale.push(next.message.id);
          continue;
        }
        this.start(lane, next.message);
        if (lane.more && lane.queue.length < REFILL_BELOW) {
          lane.more = false;
          this.wake();
        }
      }
    }
    for (const [endpointId, lane] of this.lanes) {
      if (lane.active === 0 && lane.queue.length === 0) this.lanes.delete(endpointId);
    }
    if (stale.length > 0) void this.release(stale);
  }

  private async release(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.store.release(ids).catch((error: unknown) => {
      this.logger.warn(`Could not release ${ids.length} webhook message(s): ${String(error)}`);
    });
  }

  /**
   * Starts an attempt in one of the lane's slots. The slot is free again once the exchange with
   * the receiver has ended, while its outcome is being recorded (with others ending about then):
   * a slot held until the record was written spent most of its time waiting for the database.
   */
  private start(lane: Lane, message: ClaimedMessage): void {
    lane.active++;
    this.inFlight++;
    let slotHeld = true;
    const freeSlot = () => {
      if (!slotHeld) return;
      slotHeld = false;
      lane.active--;
      this.inFlight--;
      this.pump();
    };
    const attempt = this.attempt(message, freeSlot)
      .catch((error: unknown) => {
        // Never expected (attempt records its own failures); the lease runs out and it is tried again.
        this.logger.error(`Webhook message ${message.messageId} could not be attempted: ${String(error)}`);
      })
      .finally(() => {
        this.held--;
        this.settled.delete(attempt);
        freeSlot();
      });
    this.settled.add(attempt);
  }

  private async attempt(message: ClaimedMessage, exchanged: () => void): Promise<void> {
    const outcome = await this.sender.send(message);
    exchanged();
    if (outcome.cutOff) {
      await this.release([message.id]);
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
