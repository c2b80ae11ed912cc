import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { LinkCache } from '../links/link-cache.js';
import { LinkChangeStore, type LinkChangeMessage } from './link-change-store.js';

/**
 * Every change to how a link answers, made by any process on the database (another instance, the
 * `shortlink` command, an admin's action), reaches this process's redirect cache within a second,
 * with or without Redis: published through the database (LinkChangeStore) and, in a process that
 * serves redirects (`listen`), heard from it. Redis, where set, carries the same changes at once
 * (LinkInvalidationBus); neither depends on the other being up.
 *
 * Creations are not published: no process can hold a current entry for a code just created, and
 * the entry one may hold from before a delete was dropped when the delete was published.
 */
@Injectable()
export class LinkChangeFeed implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger('LinkChanges');
  private readonly origin = randomUUID();
  /** Codes changed in this turn of the event loop: published together, as one row or message. */
  private batch?: { codes: Set<string>; sent: Promise<void> };
  private listening = false;

  constructor(
    private readonly cache: LinkCache,
    private readonly store: LinkChangeStore,
  ) {}

  onModuleInit(): void {
    this.cache.onInvalidate((code, why) => (why === 'changed' ? this.publish(code) : undefined));
  }

  /**
   * Starts hearing the other processes' changes: for the processes that serve redirects (the
   * service), not for a command that only makes changes. The cache is not used until the store
   * first hears. When it stops hearing (PostgreSQL's listening connection lost) the cache stays
   * in use, so that cached redirects keep answering while the database is down, as they did
   * before; when it hears again the cache starts empty, since changes may have been missed.
   */
  async listen(): Promise<void> {
    this.listening = true;
    this.cache.suspend('database');
    await this.store.subscribe({
      changed: (change) => this.apply(change),
      hearing: (up) => up && this.cache.resume('database'),
    });
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.listening) await this.store.close();
  }

  /** Joins the batch of this turn; resolves once it is sent (a failure is logged, not thrown). */
  private publish(code: string): Promise<void> {
    if (this.batch) {
      this.batch.codes.add(code);
      return this.batch.sent;
    }
    const codes = new Set([code]);
    const sent = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
      this.batch = undefined;
      try {
        await this.store.publish(this.origin, [...codes]);
      } catch (error) {
        // The change itself is made; other processes see it once their entries expire
        // (REDIRECT_CACHE_TTL_SECONDS), or at once through Redis where it is set.
        this.logger.warn(`Could not publish ${codes.size} link change(s) to other processes: ${String(error)}`);
      }
    });
    this.batch = { codes, sent };
    return sent;
  }

  private apply(change: LinkChangeMessage): void {
    if (change.origin === this.origin) return;
    for (const code of change.codes) this.cache.evictLocal(code);
  }
}
