import { Injectable } from '@nestjs/common';
import { InjectThrottlerStorage, type ThrottlerStorage } from '@nestjs/throttler';
import { ServiceCounters } from '../../metrics/service-counters.js';
import { RateLimitStorage } from '../../rate-limit/rate-limit.storage.js';

/** Reports per client IP and window: enough for a person, too few to flood the admins. */
export const REPORT_LIMIT = 5;
export const REPORT_WINDOW_MS = 60 * 60 * 1000;

/**
 * The /report form's limit, on the rate limits' storage: shared by every instance through Redis
 * when REDIS_URL is set, per instance otherwise. Every report sent counts, refused or not.
 */
@Injectable()
export class ReportLimits {
  private readonly storage: RateLimitStorage;

  constructor(
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    private readonly counters: ServiceCounters,
  ) {
    if (!(storage instanceof RateLimitStorage)) throw new Error('ReportLimits needs the RateLimitStorage');
    this.storage = storage;
  }

  /** Counts a report from `ip`: the seconds to wait when it is over the limit, else null. */
  async count(ip: string): Promise<number | null> {
    const record = await this.storage.increment(`report-ip:${ip}`, REPORT_WINDOW_MS, REPORT_LIMIT);
    if (!record.isBlocked) return null;
    this.counters.refusedReports++;
    return record.timeToBlockExpire;
  }
}
