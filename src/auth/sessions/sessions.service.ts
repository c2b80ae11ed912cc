import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '../../config/app-config.js';
import { APP_CONFIG } from '../../config/config.tokens.js';
import { ApiError } from '../../common/errors/api-error.js';
import { SessionsRepository } from './sessions.repository.js';

// Writing last_seen_at on every page view would turn each read into a write; a minute's
// precision is plenty for an expiry counted in days.
const TOUCH_INTERVAL_MS = 60_000;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface ActiveSession {
  accountId: string;
  idHash: string;
  /** The account is an admin of the instance (read with the session, on every page). */
  isAdmin: boolean;
  /** The account's email is proved or taken as given: else it creates no links or tokens (SIGNUP=verify). */
  emailVerified: boolean;
}

export function hashSessionId(id: string): string {
  return createHash('sha256').update(id).digest('hex');
}

@Injectable()
export class SessionsService {
  constructor(
    private readonly sessions: SessionsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  get ttlMs(): number {
    return this.config.sessionTtlDays * DAY_MS;
  }

  /**
   * Starts a session and returns the raw id for the cookie (never stored). Every way of signing
   * in ends here, so a disabled account is refused here (403 `account_disabled`), whichever it was.
   */
  async start(accountId: string): Promise<string> {
    if (await this.sessions.isAccountDisabled(accountId)) throw ApiError.accountDisabled();
    const id = randomBytes(32).toString('base64url');
    const now = new Date();
    await this.sessions.create(hashSessionId(id), accountId, now);
    // Expired rows are refused on read; clearing them here keeps the table from growing.
    await this.sessions.deleteIdleSince(new Date(now.getTime() - this.ttlMs));
    return id;
  }

  /** The live session behind a cookie value, or null (unknown, malformed or idle too long). */
  async resolve(rawId: string | undefined): Promise<ActiveSession | null> {
    if (!rawId || !/^[A-Za-z0-9_-]{43}$/.test(rawId)) return null;
    const idHash = hashSessionId(rawId);
    const session = await this.sessions.find(idHash);
    if (!session) return null;
    const now = Date.now();
    // A disabled account's sessions end (disabling deletes them; this holds should one remain).
    if (session.accountDisabled || now - session.lastSeenAt.getTime() > this.ttlMs) {
      await this.sessions.delete(idHash);
      return null;
    }
    if (now - session.lastSeenAt.getTime() > TOUCH_INTERVAL_MS) await this.sessions.touch(idHash, new Date(now));
    return { accountId: session.accountId, idHash, isAdmin: session.isAdmin, emailVerified: session.emailVerified };
  }

  async end(idHash: string): Promise<void> {
    await this.sessions.delete(idHash);
  }

  /** When the session last proved a sign-in factor: its sign-in, or a confirmation since; null if unknown. */
  authenticatedAt(idHash: string): Promise<Date | null> {
    return this.sessions.findAuthenticatedAt(idHash);
  }

  /** The session has just proved a sign-in factor again (the password, with its code if any). */
  async recordAuthentication(idHash: string): Promise<void> {
    await this.sessions.recordAuthentication(idHash, new Date());
  }

  /**
   * Ends every session of the account (all but `keepIdHash`, the one changing the password) and
   * every sign-in of it in progress, so nothing begun before (with an old password, say) can
   * finish after.
   */
  async endAllBut(accountId: string, keepIdHash?: string): Promise<void> {
    await this.sessions.deleteForAccount(accountId, keepIdHash);
  }
}
