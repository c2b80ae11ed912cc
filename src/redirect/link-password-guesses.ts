import { Injectable } from '@nestjs/common';
import { InjectThrottlerStorage, type ThrottlerStorage } from '@nestjs/throttler';
import { verifyPassword } from '../accounts/passwords.js';
import { LINK_PASSWORD_MAX_LENGTH, STORED_LINK_PASSWORD_MIN_LENGTH } from '../links/link-password.js';
import { RateLimitStorage } from '../rate-limit/rate-limit.storage.js';

/** Wrong passwords per client IP and link in a window, before the next try is refused (the contract). */
export const LINK_PASSWORD_GUESSES = 10;
/**
 * Wrong passwords per link in a window from every address together, before the link is locked
 * for the rest of the window: what guesses spread over many addresses (a botnet, a cross-site
 * page making its visitors' browsers guess) get, at most 30 per 15 minutes, about 2,900 a day.
 */
export const LINK_PASSWORD_GUESSES_PER_LINK = 30;
export const LINK_PASSWORD_WINDOW_MS = 15 * 60 * 1000;

/** Who is refused: this client address on this link, or everyone on this link (it is locked). */
export type GuessLimit = 'address' | 'link';

export type GuessOutcome =
  { outcome: 'right' } | { outcome: 'wrong' } | { outcome: 'limited'; limit: GuessLimit; retryAfterSeconds: number };

/** What the owner of a protected link is told about the guesses on it. */
export interface LinkGuesses {
  /** Wrong passwords in the current window, from every address. */
  wrongGuesses: number;
  /** While the link is locked: the seconds until it opens again; else null. */
  lockedForSeconds: number | null;
}

/**
 * Checks passwords given for a protected link, counting the wrong ones per client IP and link,
 * and per link from every address, in the rate-limit storage (Redis when REDIS_URL is set, so
 * every instance shares the counts; per instance otherwise, as the sign-in limits). Once a client
 * has 10 wrong tries on a link in 15 minutes, or the link 30 from everyone, the next tries are
 * refused unchecked until the window ends: the hash (scrypt, as account passwords) is never
 * computed for them, the right password included.
 *
 * Each try is counted before its password is checked, and given back when it was right: checked
 * first and counted after, tries sent at once over many connections would all pass the check
 * before any was counted. So at most 10 tries per address and 30 per link are ever being checked
 * or wrong in a window, and people who know the password (an office behind one address, a
 * popular link) are never held up by each other.
 */
@Injectable()
export class LinkPasswordGuesses {
  private readonly storage: RateLimitStorage;

  constructor(@InjectThrottlerStorage() storage: ThrottlerStorage) {
    if (!(storage instanceof RateLimitStorage)) throw new Error('LinkPasswordGuesses needs the RateLimitStorage');
    this.storage = storage;
  }

  async check(code: string, clientIp: string, password: string, passwordHash: string): Promise<GuessOutcome> {
    const addressKey = addressKeyOf(code, clientIp);
    const byAddress = await this.storage.increment(addressKey, LINK_PASSWORD_WINDOW_MS, LINK_PASSWORD_GUESSES);
    if (byAddress.isBlocked) {
      // Over the limit: this try was not checked, so it is no wrong password either.
      await this.storage.release(addressKey);
      return { outcome: 'limited', limit: 'address', retryAfterSeconds: byAddress.timeToBlockExpire };
    }
    const linkKey = linkKeyOf(code);
    const byLink = await this.storage.increment(linkKey, LINK_PASSWORD_WINDOW_MS, LINK_PASSWORD_GUESSES_PER_LINK);
    if (byLink.isBlocked) {
      await Promise.all([this.storage.release(linkKey), this.storage.release(addressKey)]);
      return { outcome: 'limited', limit: 'link', retryAfterSeconds: byLink.timeToBlockExpire };
    }
    // A password no link can have is wrong without hashing it (a 10k-character one costs nothing).
    const possible = password.length >= STORED_LINK_PASSWORD_MIN_LENGTH && password.length <= LINK_PASSWORD_MAX_LENGTH;
    if (possible && (await verifyPassword(password, passwordHash))) {
      await Promise.all([this.storage.release(linkKey), this.storage.release(addressKey)]);
      return { outcome: 'right' };
    }
    return { outcome: 'wrong' };
  }

  /** The wrong passwords tried on a link in the current window, and whether it is locked (for its owner). */
  async guessesOn(code: string): Promise<LinkGuesses> {
    const record = await this.storage.peek(linkKeyOf(code), LINK_PASSWORD_GUESSES_PER_LINK);
    return {
      wrongGuesses: record.totalHits,
      lockedForSeconds: record.isBlocked ? record.timeToBlockExpire : null,
    };
  }
}

function addressKeyOf(code: string, clientIp: string): string {
  return `link-password:${code}:${clientIp}`;
}

function linkKeyOf(code: string): string {
  return `link-password-link:${code}`;
}
