import { Injectable } from '@nestjs/common';
import { InjectThrottlerStorage, type ThrottlerStorage } from '@nestjs/throttler';
import { verifyPassword } from '../accounts/passwords.js';
import { LINK_PASSWORD_MAX_LENGTH, LINK_PASSWORD_MIN_LENGTH } from '../links/link-password.js';
import { RateLimitStorage } from '../rate-limit/rate-limit.storage.js';

/** Wrong passwords per client IP and link in a window, before the next try is refused (the contract). */
export const LINK_PASSWORD_GUESSES = 10;
export const LINK_PASSWORD_WINDOW_MS = 15 * 60 * 1000;

export type GuessOutcome =
  { outcome: 'right' } | { outcome: 'wrong' } | { outcome: 'limited'; retryAfterSeconds: number };

/**
 * Checks passwords given for a protected link, counting the wrong ones per client IP and link in
 * the rate-limit storage (Redis when REDIS_URL is set, so every instance shares the count). Once
 * a client has 10 wrong tries on a link in 15 minutes, its next tries are refused unchecked until
 * the window ends: the hash (scrypt, as account passwords) is never computed for them.
 *
 * Each try is counted before its password is checked, and given back when it was right: checked
 * first and counted after, tries sent at once over many connections would all pass the check
 * before any was counted. So at most 10 tries are ever being checked or wrong in a window, and
 * people behind one address who know the password (an office) are never held up by each other.
 */
@Injectable()
export class LinkPasswordGuesses {
  private readonly storage: RateLimitStorage;

  constructor(@InjectThrottlerStorage() storage: ThrottlerStorage) {
    if (!(storage instanceof RateLimitStorage)) throw new Error('LinkPasswordGuesses needs the RateLimitStorage');
    this.storage = storage;
  }

  async check(code: string, clientIp: string, password: string, passwordHash: string): Promise<GuessOutcome> {
    const key = `link-password:${code}:${clientIp}`;
    const counted = await this.storage.increment(key, LINK_PASSWORD_WINDOW_MS, LINK_PASSWORD_GUESSES);
    if (counted.isBlocked) {
      // Over the limit: this try was not checked, so it is no wrong password either.
      await this.storage.release(key);
      return { outcome: 'limited', retryAfterSeconds: counted.timeToBlockExpire };
    }
    // A password no link can have is wrong without hashing it (a 10k-character one costs nothing).
    const possible = password.length >= LINK_PASSWORD_MIN_LENGTH && password.length <= LINK_PASSWORD_MAX_LENGTH;
    if (possible && (await verifyPassword(password, passwordHash))) {
      await this.storage.release(key);
      return { outcome: 'right' };
    }
    return { outcome: 'wrong' };
  }
}
