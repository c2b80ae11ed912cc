import { Module } from '@nestjs/common';
import { BlockedHostList } from './blocked-host-list.js';
import { BlockedHostsRepository } from './blocked-hosts.repository.js';

/**
 * The blocked hosts: the rules of a host name (blocked-host.ts), the table, and the cached list
 * every link creation and change is checked against. Blocking and unblocking (which disable and
 * enable links) are the admins' (src/admin), which builds on the links.
 */
@Module({
  providers: [BlockedHostsRepository, BlockedHostList],
  exports: [BlockedHostsRepository, BlockedHostList],
})
export class BlockedHostsModule {}
