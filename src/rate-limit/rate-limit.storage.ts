import { Logger } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import type { Redis } from 'ioredis';
import { MemoryWindows, windowRecord, type ThrottlerStorageRecord } from './fixed-window.js';

/**
 * One atomic step per request: count the hit, start the window on the first one, report the
 * window's remaining milliseconds. `PTTL` is -1 only for a counter without expiry (first hit,
 * or a window whose PEXPIRE never ran), so a counter can never outlive its window.
 */
const HIT_SCRIPT = `
local hits = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {hits, ttl}
`;

/** A counter's hits and the window's remaining milliseconds, without counting a hit. */
const PEEK_SCRIPT = `
local hits = tonumber(redis.call('GET', KEYS[1]) or '0')
local ttl = redis.call('PTTL', KEYS[1])
return {hits, ttl}
`;

/** Takes back one hit of a counter that is still in its window (never below 0, never a new key). */
const RELEASE_SCRIPT = `
local hits = tonumber(redis.call('GET', KEYS[1]) or '0')
if hits > 0 then redis.call('DECR', KEYS[1]) end
return hits
`;

type RedisWithHit = Redis & {
  rateLimitHit(key: string, ttlMs: number): Promise<[number, number]>;
  rateLimitPeek(key: string): Promise<[number, number]>;
  rateLimitRelease(key: string): Promise<number>;
};

/**
 * The throttler's storage: counters in Redis when REDIS_URL is set, so every instance shares
 * them; in memory otherwise. Rate limiting must never break the service, so a Redis that is
 * down or slow sends the request to the per-instance counters instead (logged once, and once
 * more when Redis is back).
 */
export class RateLimitStorage implements ThrottlerStorage {
  private readonly memory = new MemoryWindows();
  private readonly redis: RedisWithHit | null;
  private degraded = false;

  constructor(
    redis: Redis | null,
    private readonly logger: { log(message: string): void; warn(message: string): void } = new Logger('RateLimit'),
  ) {
    if (redis) {
      redis.defineCommand('rateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
      redis.defineCommand('rateLimitPeek', { numberOfKeys: 1, lua: PEEK_SCRIPT });
      redis.defineCommand('rateLimitRelease', { numberOfKeys: 1, lua: RELEASE_SCRIPT });
    }
    this.redis = redis as RedisWithHit | null;
  }

  /** `blockDuration` is not used: a caller over the limit is refused until the window resets. */
  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    const { hits, msLeft } = (await this.hitRedis(key, ttl)) ?? this.memory.hit(key, ttl);
    return windowRecord(hits, msLeft, limit);
  }

  /**
   * The key's record as the next `increment` would see it before its own hit: whether the key is
   * already over `limit`. Used where only failures count (sign-in), so the check comes first.
   */
  async peek(key: string, limit: number): Promise<ThrottlerStorageRecord> {
    const { hits, msLeft } = (await this.peekRedis(key)) ?? this.memory.peek(key);
    return windowRecord(hits, msLeft, limit - 1);
  }

  /**
   * Takes back one hit counted by `increment`: for limits that count only failures but must
   * reserve a try before knowing (so that concurrent tries cannot all pass a check made before
   * any of them failed). The hit goes back to the store it was counted in as far as can be told:
   * with Redis down, to the per-instance counters.
   */
  async release(key: string): Promise<void> {
    if (this.redis && this.redis.status === 'ready') {
      try {
        await this.redis.rateLimitRelease(key);
        return;
      } catch (error) {
        this.fallBack(error instanceof Error ? error.message : String(error));
      }
    }
    this.memory.release(key);
  }

  private async peekRedis(key: string): Promise<{ hits: number; msLeft: number } | undefined> {
    if (!this.redis) return undefined;
    if (this.redis.status !== 'ready') return this.fallBack(`connection is ${this.redis.status}`);
    try {
      const [hits, msLeft] = await this.redis.rateLimitPeek(key);
      return { hits, msLeft: Math.max(0, msLeft) };
    } catch (error) {
      return this.fallBack(error instanceof Error ? error.message : String(error));
    }
  }

  private async hitRedis(key: string, ttlMs: number): Promise<{ hits: number; msLeft: number } | undefined> {
    if (!this.redis) return undefined;
    // Not connected: skip the call altogether rather than build an error per request.
    if (this.redis.status !== 'ready') return this.fallBack(`connection is ${this.redis.status}`);
    try {
      const [hits, msLeft] = await this.redis.rateLimitHit(key, ttlMs);
      if (this.degraded) {
        this.degraded = false;
        this.logger.log('Redis is back: rate limits are shared by all instances again');
      }
      return { hits, msLeft };
    } catch (error) {
      return this.fallBack(error instanceof Error ? error.message : String(error));
    }
  }

  private fallBack(reason: string): undefined {
    if (!this.degraded) {
      this.degraded = true;
      this.logger.warn(`Redis unavailable (${reason}): rate limits are counted per instance until it returns`);
    }
    return undefined;
  }
}
