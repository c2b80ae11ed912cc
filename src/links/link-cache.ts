import { Inject, Injectable, Logger } from '@nestjs/common';
import { LruCache } from '../common/lru-cache.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.tokens.js';

/**
 * Why a code is invalidated: a link `created` under it (no instance can hold a current entry for
 * it, only one left over from before a delete), or `changed` (edited, deleted, disabled, enabled).
 */
export type LinkInvalidation = 'created' | 'changed';

/**
 * Called with the code of every link created, changed or deleted on this instance. This is the
 * seam for sharing invalidations between instances (Redis pub/sub, the database's change feed);
 * the receiving side calls `LinkCache.evictLocal(code)`, which does not call listeners again.
 * The returned promise is awaited before the API answers the change.
 */
export type LinkInvalidationListener = (code: string, why: LinkInvalidation) => void | Promise<void>;

/**
 * What makes a link's redirect more than a 302 to its `url`: a password to ask for, another
 * target for some devices, or the link being disabled. Most links have none, and then no object at all (`rules` undefined),
 * so the fast path's test for them is one property read.
 */
export interface LinkRules {
  /** The scrypt hash of the link's password; null: no password. */
  passwordHash: string | null;
  /** Where iPhones, iPads and iPods go instead; null: to `url`. */
  iosUrl: string | null;
  /** Where Android devices go instead; null: to `url`. */
  androidUrl: string | null;
  /**
   * Disabled by the instance's admins (by hand, a blocked host, a disabled account): the redirect
   * answers 410 with a page saying so, whatever the other rules.
   */
  disabled: boolean;
}

/** The rules of a link's columns: undefined when it has none (a plain link). */
export function linkRules(
  passwordHash: string | null,
  iosUrl: string | null,
  androidUrl: string | null,
  disabled = false,
): LinkRules | undefined {
  return passwordHash === null && iosUrl === null && androidUrl === null && !disabled
    ? undefined
    : { passwordHash, iosUrl, androidUrl, disabled };
}

/** A cache entry: the link as the redirect needs it. */
export interface CachedLink {
  target: string;
  /** When this entry must be read again from the database (REDIRECT_CACHE_TTL_SECONDS). */
  expiresAt: number;
  /** When the link itself expires (`expires_at`, ms since the epoch); Infinity: never. */
  linkExpiresAt: number;
  /** Its password or device targets; undefined for a plain link (the fast path's links). */
  rules: LinkRules | undefined;
}

/**
 * Per-instance cache of code → target URL for redirects (bounded LRU; `REDIRECT_CACHE_SIZE=0`
 * disables it). The links service invalidates a code on every create, update and delete, so no
 * redirect answered after the change was acknowledged uses the old target.
 *
 * A redirect that misses reads the database and then stores what it read. If a change lands in
 * between, that read may already be stale: `generation()` is taken before the read and
 * `setIfUnchanged()` stores nothing when any invalidation happened since.
 *
 * Entries also expire `REDIRECT_CACHE_TTL_SECONDS` after they were read (default 300): the bound
 * on how long an instance can serve a target it was never told had changed (an instance cut off
 * from Redis while the others keep it cannot tell them about its own changes until it is back;
 * a change made in the database directly is announced by nobody). Each entry expires on its own
 * schedule, so hot links are re-read one at a time rather than all at once.
 *
 * An entry also carries the link's own expiry (`expires_at`): once past it, `get` no longer
 * answers (the fast path steps aside) and the redirect route answers 410 from `entry`, so an
 * expired link costs no database read either. A changed expiry is invalidated like a target.
 * Likewise a link with rules (a password, device targets) is cached, but only `entry` answers
 * for it: the redirect route applies them.
 */
@Injectable()
export class LinkCache {
  private readonly logger = new Logger(LinkCache.name);
  private readonly entries: LruCache<string, CachedLink>;
  private readonly ttlMs: number;
  private readonly listeners: LinkInvalidationListener[] = [];
  private invalidations = 0;
  /**
   * While any is set, the cache is bypassed: this instance cannot hear other instances' changes
   * through that road (`redis`, `database`).
   */
  private readonly suspendedBy = new Set<string>();
  private suspended = false;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.entries = new LruCache(config.redirectCacheSize);
    this.ttlMs = config.redirectCacheTtlSeconds > 0 ? config.redirectCacheTtlSeconds * 1000 : Infinity;
  }

  /**
   * The target to redirect to, if cached, the link has not expired and has no rules: what the
   * redirect fast path answers with. An expired link's entry stays, for `entry` (the 410 without
   * a database read), as does a link's with rules (the redirect route applies them).
   */
  get(code: string): string | undefined {
    if (this.suspended) return undefined;
    const entry = this.entries.get(code);
    if (entry === undefined) return undefined;
    const now = Date.now();
    if (entry.expiresAt <= now) {
      this.entries.delete(code);
      return undefined;
    }
    return entry.linkExpiresAt > now && entry.rules === undefined ? entry.target : undefined;
  }

  /** The cached link, expired or not; undefined when not cached (or the entry is too old). */
  entry(code: string): CachedLink | undefined {
    if (this.suspended) return undefined;
    const entry = this.entries.get(code);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.entries.delete(code);
      return undefined;
    }
    return entry;
  }

  /** A value to pass to `setIfUnchanged` after reading the database. */
  generation(): number {
    return this.invalidations;
  }

  /**
   * Stores a target read from the database unless a link changed since `generation`.
   * `linkExpiresAt`: the link's own expiry (ms since the epoch; Infinity for none); `rules`: its
   * password or device targets, if any.
   */
  setIfUnchanged(code: string, target: string, generation: number, linkExpiresAt = Infinity, rules?: LinkRules): void {
    if (generation === this.invalidations && !this.suspended) {
      // Always the same four properties, so every entry has one shape (the fast path's reads stay monomorphic).
      this.entries.set(code, { target, expiresAt: Date.now() + this.ttlMs, linkExpiresAt, rules });
    }
  }

  /** Drops the code here and tells every listener (other instances) to do the same. */
  async invalidate(code: string, why: LinkInvalidation = 'changed'): Promise<void> {
    this.evictLocal(code);
    if (this.listeners.length === 0) return;
    const results = await Promise.allSettled(this.listeners.map(async (listener) => listener(code, why)));
    for (const result of results) {
      if (result.status === 'rejected') {
        this.logger.warn(`Could not share the invalidation of a link: ${String(result.reason)}`);
      }
    }
  }

  /** Drops the code on this instance only: for invalidations received from other instances. */
  evictLocal(code: string): void {
    this.invalidations++;
    this.entries.delete(code);
  }

  /** Drops every entry on this instance (entries read before now are not stored either). */
  evictAll(): void {
    this.invalidations++;
    this.entries.clear();
  }

  /**
   * Stops using the cache: redirects read the database. For while this instance cannot receive
   * other instances' invalidations through one road (`by`: its Redis subscription, its database
   * listener; see src/scale-out).
   */
  suspend(by: string): void {
    this.suspendedBy.add(by);
    this.suspended = true;
    this.evictAll();
  }

  /**
   * That road is back: the cache is used again once no other is down, starting empty, since
   * invalidations may have been missed meanwhile.
   */
  resume(by: string): void {
    this.evictAll();
    this.suspendedBy.delete(by);
    this.suspended = this.suspendedBy.size > 0;
  }

  /** Registers a listener for local invalidations; returns a function that removes it. */
  onInvalidate(listener: LinkInvalidationListener): () => void {
    this.listeners.push(listener);
    return () => {
      const index = this.listeners.indexOf(listener);
      if (index >= 0) this.listeners.splice(index, 1);
    };
  }
}
