import { Injectable } from '@nestjs/common';
import { blockerOf } from './blocked-host.js';
import { BlockedHostsRepository } from './blocked-hosts.repository.js';

/**
 * How long an instance trusts the list it read: a host blocked on another instance is refused
 * for new links here at most this long after (the block's second sweep, `BLOCK_RESWEEP_MS`,
 * disables any link created meanwhile). This instance's own changes take effect at once.
 */
export const BLOCKED_HOSTS_TTL_MS = 5_000;

/** The blocked hosts at one moment, to check many URLs against (a bulk call's items). */
export interface BlockedHostSnapshot {
  /** The blocked host `url` points at (or at a subdomain of), or null. */
  blockerOf(url: string): string | null;
}

/**
 * The blocked hosts, as every link creation and change checks them (`blocked_url`): the whole
 * list in memory, read again at most every BLOCKED_HOSTS_TTL_MS, so a check costs a few set
 * lookups and, almost always, no query. The list is short (hosts an admin typed), whatever the
 * number of links.
 */
@Injectable()
export class BlockedHostList {
  private hosts: ReadonlySet<string> = new Set();
  private readAt = -Infinity;
  /** The read the stale-list checks wait for together. */
  private reading?: Promise<ReadonlySet<string>>;
  /** Reads are numbered: one that began before another never overwrites what the later read. */
  private readsStarted = 0;
  private newestApplied = 0;

  constructor(private readonly repository: BlockedHostsRepository) {}

  /** The list as it is now (read again if it is older than the TTL). */
  async snapshot(): Promise<BlockedHostSnapshot> {
    let hosts = this.hosts;
    if (Date.now() - this.readAt >= BLOCKED_HOSTS_TTL_MS) {
      this.reading ??= this.read().finally(() => (this.reading = undefined));
      hosts = await this.reading;
    }
    return { blockerOf: (url) => blockerOf(url, hosts) };
  }

  /** Reads the list again now: after a change made on this instance. */
  async refresh(): Promise<void> {
    await this.read();
  }

  private async read(): Promise<ReadonlySet<string>> {
    const number = ++this.readsStarted;
    const hosts = new Set(await this.repository.hosts());
    if (number > this.newestApplied) {
      this.newestApplied = number;
      this.hosts = hosts;
      this.readAt = Date.now();
    }
    return this.hosts;
  }
}
