import { Inject, Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import { LinkCache } from '../links/link-cache.js';
import { REDIS_CLIENT, REDIS_SUBSCRIBER } from '../redis/redis.tokens.js';

const INVALIDATION_CHANNEL = 'shortlink:link-invalidations';
const ACK_CHANNEL_PREFIX = 'shortlink:link-invalidation-acks:';

/** How long a change waits for the other instances to confirm before it is answered anyway. */
const ACK_TIMEOUT_MS = 1000;

/** What travels on the invalidation channel. */
interface InvalidationMessage {
  id: string;
  /** The instance that changed the links; acknowledgements go to its own channel. */
  from: string;
  codes: string[];
}

function parseMessage(raw: string): InvalidationMessage | undefined {
  try {
    const value = JSON.parse(raw) as Partial<InvalidationMessage>;
    const valid =
      typeof value.id === 'string' &&
      typeof value.from === 'string' &&
      Array.isArray(value.codes) &&
      value.codes.every((code) => typeof code === 'string');
    return valid ? (value as InvalidationMessage) : undefined;
  } catch {
    return undefined;
  }
}

/** An invalidation waiting for its acknowledgements. */
class PendingAcks {
  private received = 0;
  private expected?: number;
  private resolve!: () => void;
  readonly settled = new Promise<void>((resolve) => (this.resolve = resolve));

  ack(): void {
    this.received++;
    this.check();
  }

  expect(receivers: number): void {
    this.expected = receivers;
    this.check();
  }

  get missing(): number {
    return Math.max(0, (this.expected ?? 0) - this.received);
  }

  private check(): void {
    if (this.expected !== undefined && this.received >= this.expected) this.resolve();
  }
}

/**
 * Keeps the redirect caches of all instances consistent through Redis pub/sub (inactive
 * without REDIS_URL, where the one instance's own invalidation is enough).
 *
 * Pub/sub alone leaves a window: PUBLISH returns once Redis has queued the message, not once
 * the other instances have dropped the entry, so a client could see the PUT answered and still
 * be redirected to the old target by another instance a moment later. The window is closed by
 * acknowledgements: PUBLISH reports how many subscribers got the message, each of them answers
 * on the sender's acknowledgement channel after evicting, and the change is answered only when
 * all have (or after ACK_TIMEOUT_MS, logged).
 *
 * An instance that cannot hear invalidations must not trust its cache: while its subscriber
 * connection is down the cache is suspended (redirects read the database), and on reconnecting
 * it empties the cache before using it again, since it may have missed messages meanwhile.
 * Changes made while this instance cannot publish are remembered and published once Redis is
 * back, so the other instances' caches do not keep an old target.
 */
@Injectable()
export class LinkInvalidationBus implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('LinkInvalidation');
  private readonly instanceId = randomUUID();
  private readonly ackChannel = `${ACK_CHANNEL_PREFIX}${this.instanceId}`;
  private readonly pending = new Map<string, PendingAcks>();
  /** Codes changed here while Redis could not be told; published when it returns. */
  private readonly unpublished = new Set<string>();
  private listening = false;
  private stopped = false;
  private markListening!: () => void;
  private readonly firstListen = new Promise<void>((resolve) => (this.markListening = resolve));

  constructor(
    private readonly cache: LinkCache,
    @Inject(REDIS_CLIENT) private readonly publisher: Redis | null,
    @Inject(REDIS_SUBSCRIBER) private readonly subscriber: Redis | null,
  ) {}

  /** True when invalidations reach this instance (always true without Redis). */
  get isListening(): boolean {
    return this.subscriber === null || this.listening;
  }

  async onModuleInit(): Promise<void> {
    const { publisher, subscriber } = this;
    if (!publisher || !subscriber) return;

    this.cache.suspend('redis');
    this.cache.onInvalidate((code) => this.publish([code]));
    subscriber.on('message', (channel: string, message: string) => this.receive(channel, message));
    subscriber.on('close', () => this.deafen());
    subscriber.on('ready', () => void this.listen());
    publisher.on('ready', () => void this.publishRemembered());

    // Start-up does not wait for a Redis that is down, only for one that is still connecting:
    // both connections, so that a change answered right after start-up has been published.
    if (subscriber.status === 'ready') await this.listen();
    await Promise.race([Promise.all([this.firstListen, whenReady(publisher)]), sleep(2000)]);
  }

  onApplicationShutdown(): void {
    this.stopped = true;
    for (const pending of this.pending.values()) pending.expect(0);
  }

  /** Tells every instance (this one included) to drop `codes`, and waits until they have. */
  async publish(codes: string[]): Promise<void> {
    const publisher = this.publisher!;
    if (publisher.status !== 'ready') {
      this.remember(codes, `connection is ${publisher.status}`);
      return;
    }
    const id = randomUUID();
    const acks = new PendingAcks();
    // Registered before publishing: the first acknowledgements can arrive before PUBLISH's reply.
    this.pending.set(id, acks);
    try {
      const message: InvalidationMessage = { id, from: this.instanceId, codes };
      const receivers = await publisher.publish(INVALIDATION_CHANNEL, JSON.stringify(message));
      // Without our own subscription, no acknowledgement can reach us: do not wait for any.
      acks.expect(this.listening ? receivers : 0);
      const timedOut = await Promise.race([acks.settled.then(() => false), sleep(ACK_TIMEOUT_MS).then(() => true)]);
      if (timedOut) {
        this.logger.warn(
          `${acks.missing} instance(s) did not confirm a link invalidation within ${ACK_TIMEOUT_MS} ms; answering anyway`,
        );
      }
    } catch (error) {
      this.remember(codes, error instanceof Error ? error.message : String(error));
    } finally {
      this.pending.delete(id);
    }
  }

  private remember(codes: string[], reason: string): void {
    if (this.unpublished.size === 0) {
      this.logger.warn(
        `Cannot publish link invalidations (${reason}); other instances will be told when Redis is back`,
      );
    }
    for (const code of codes) this.unpublished.add(code);
  }

  private async publishRemembered(): Promise<void> {
    if (this.unpublished.size === 0) return;
    const codes = [...this.unpublished];
    this.unpublished.clear();
    this.logger.log(`Publishing ${codes.length} link invalidation(s) made while Redis was unavailable`);
    await this.publish(codes);
  }

  private receive(channel: string, raw: string): void {
    if (channel === this.ackChannel) {
      this.pending.get(raw)?.ack();
      return;
    }
    if (channel !== INVALIDATION_CHANNEL) return;
    const message = parseMessage(raw);
    if (!message) {
      this.logger.warn('Ignored a malformed message on the link invalidation channel');
      return;
    }
    for (const code of message.codes) this.cache.evictLocal(code);
    if (this.publisher?.status !== 'ready' || this.stopped) return;
    this.publisher.publish(`${ACK_CHANNEL_PREFIX}${message.from}`, message.id).catch((error: unknown) => {
      this.logger.warn(`Could not acknowledge a link invalidation: ${String(error)}`);
    });
  }

  private async listen(): Promise<void> {
    const subscriber = this.subscriber!;
    try {
      await subscriber.subscribe(INVALIDATION_CHANNEL, this.ackChannel);
    } catch (error) {
      // The connection dropped again; the next 'ready' retries.
      this.logger.warn(`Could not subscribe to link invalidations: ${String(error)}`);
      return;
    }
    // Resuming empties the cache: it may have missed invalidations while we were not subscribed.
    this.cache.resume('redis');
    this.listening = true;
    this.markListening();
  }

  private deafen(): void {
    if (!this.listening || this.stopped) return;
    this.listening = false;
    this.cache.suspend('redis');
    this.logger.warn('Not receiving link invalidations: redirects read the database until Redis is back');
  }
}

function whenReady(redis: Redis): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => redis.once('ready', () => resolve()));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
