import { byDatabaseKind } from '../../database/database-connections.js';
import { PrismaService } from '../../database/prisma.service.js';
import { LinkStore } from './link-store.js';
import { PostgresLinkStore } from './postgres-link-store.js';
import { SqliteLinkStore } from './sqlite-link-store.js';

/** The LinkStore of the database in use, chosen once when the links module starts. */
export const linkStoreProvider = byDatabaseKind(LinkStore, {
  inject: [PrismaService],
  sqlite: (connections, prisma: PrismaService) => new SqliteLinkStore(connections, prisma),
  postgresql: (pools) => new PostgresLinkStore(pools.main),
});
