import { Injectable } from '@nestjs/common';
import { LinkCache } from '../links/link-cache.js';
import { couldBeCode } from '../links/short-code.js';
import { ClickCounter } from './click-counter.js';
import { RedirectRepository } from './redirect.repository.js';

/** The hot path: code → target, from the per-instance cache when possible. */
@Injectable()
export class RedirectService {
  constructor(
    private readonly cache: LinkCache,
    private readonly redirects: RedirectRepository,
    private readonly clicks: ClickCounter,
  ) {}

  /** The target of `code`, or null when no such link exists. */
  async resolve(code: string): Promise<string | null> {
    if (!couldBeCode(code)) return null;
    const cached = this.cache.get(code);
    if (cached !== undefined) return cached;
    const generation = this.cache.generation();
    const target = await this.redirects.findTarget(code);
    if (target !== null) this.cache.setIfUnchanged(code, target, generation);
    return target;
  }

  /** Counts one visit (written to the database in batches). */
  countClick(code: string): void {
    this.clicks.record(code);
  }
}
