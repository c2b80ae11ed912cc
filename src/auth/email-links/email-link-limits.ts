import { Injectable } from '@nestjs/common';
import { InjectThrottlerStorage, type ThrottlerStorage } from '@nestjs/throttler';
import { RateLimitStorage } from '../../rate-limit/rate-limit.storage.js';

/** Emails of one kind per counter and window: "at most 5 reset emails per hour per email and per client IP". */
export const EMAIL_LINK_LIMIT = 5;
export const EMAIL_LINK_WINDOW_MS = 60 * 60 * 1000;

/**
 * The limits on asking for emails with links (a password reset, the sign-up's link again), on
 * the rate limits' storage: shared by every instance through Redis when REDIS_URL is set. Every
 * request counts, whether an account has the address or not, so a limit says nothing about
 * which addresses are registered.
 */
@Injectable()
export class EmailLinkLimits {
  private readonly storage: RateLimitStorage;

  constructor(@InjectThrottlerStorage() storage: ThrottlerStorage) {
    if (!(storage instanceof RateLimitStorage)) throw new Error('EmailLinkLimits needs the RateLimitStorage');
    this.storage = storage;
  }

  /** Counts one request on each key: the seconds to wait when one is over the limit, else null. */
  async count(...keys: string[]): Promise<number | null> {
    let wait = 0;
    for (const key of keys) {
      const record = await this.storage.increment(`email-link:${key}`, EMAIL_LINK_WINDOW_MS, EMAIL_LINK_LIMIT);
      if (record.isBlocked) wait = Math.max(wait, record.timeToBlockExpire);
    }
    return wait > 0 ? wait : null;
  }
}
