import { Injectable } from '@nestjs/common';
import { RedirectLookup, type LinkTarget } from './redirect-lookup.js';

@Injectable()
export class RedirectRepository {
  constructor(private readonly lookup: RedirectLookup) {}

  /**
   * One primary-key read, for every redirect the cache misses: through the driver with a prepared
   * statement (`RedirectLookup`), as the same query through Prisma costs many times more CPU.
   */
  findTarget(code: string): Promise<LinkTarget | null> {
    return this.lookup.findTarget(code);
  }
}
