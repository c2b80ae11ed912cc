import type { ThrottlerStorage } from '@nestjs/throttler';

/** What a throttler storage answers per hit (the package does not export the type by name). */
export type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * One counter per key that starts with the key's first hit and resets `ttl` milliseconds later
 * (the Redis storage behaves the same way). A caller over the limit is refused until the window
 * resets, so `Retry-After` and `X-RateLimit-Reset` always agree.
 */
export function windowRecord(hits: number, msLeft: number, limit: number): ThrottlerStorageRecord {
  const secondsLeft = Math.max(1, Math.ceil(msLeft / 1000));
  const isBlocked = hits > limit;
  return { totalHits: hits, timeToExpire: secondsLeft, isBlocked, timeToBlockExpire: isBlocked ? secondsLeft : 0 };
}

/**
 * The per-instance counters: used when REDIS_URL is unset, and while Redis is unreachable.
 * @nestjs/throttler's own in-memory storage counts a sliding log of hits with a separate block
 * period, which would make the headers mean something else with and without Redis.
 */
export class MemoryWindows {
  private readonly windows = new Map<string, { hits: number; resetAt: number }>();
  private lastSweep = 0;

  hit(key: string, ttlMs: number, now = Date.now()): { hits: number; msLeft: number } {
    this.sweep(now);
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      window = { hits: 0, resetAt: now + ttlMs };
      this.windows.set(key, window);
    }
    window.hits += 1;
    return { hits: window.hits, msLeft: window.resetAt - now };
  }

  /** The key's hits in its current window, without counting one more. */
  peek(key: string, now = Date.now()): { hits: number; msLeft: number } {
    const window = this.windows.get(key);
    if (!window || window.resetAt <= now) return { hits: 0, msLeft: 0 };
    return { hits: window.hits, msLeft: window.resetAt - now };
  }

  /** Takes back one hit of the key's current window (none below 0, nothing when it has none). */
  release(key: string, now = Date.now()): void {
    const window = this.windows.get(key);
    if (window && window.resetAt > now && window.hits > 0) window.hits -= 1;
  }

  get size(): number {
    return this.windows.size;
  }

  // Expired windows are dropped at most once a second, so memory follows the active callers.
  private sweep(now: number): void {
    if (now - this.lastSweep < 1000) return;
    this.lastSweep = now;
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
  }
}
