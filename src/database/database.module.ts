import { Global, Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.tokens.js';
import { DATABASE_CONNECTIONS, openDatabaseConnections, type DatabaseConnections } from './database-connections.js';
import { preparedReadsProvider, PreparedReads } from './prepared-reads.js';
import { createDatabaseClient, tuneSqlite } from './prisma-client.factory.js';
import { PrismaService } from './prisma.service.js';

/**
 * The database, reached two ways, both opened here once: Prisma (PrismaService) for ordinary
 * queries, and the database kind's own connections (DATABASE_CONNECTIONS) for the stores of the
 * paths Prisma was measured too slow on (docs/adr/0005-one-road-to-each-database.md).
 */
@Global()
@Module({
  providers: [
    {
      provide: DATABASE_CONNECTIONS,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => openDatabaseConnections(config.database),
    },
    {
      provide: PrismaService,
      inject: [DATABASE_CONNECTIONS],
      useFactory: async (connections: DatabaseConnections) => {
        if (connections.kind === 'postgresql') return createDatabaseClient(connections);
        const client = await createDatabaseClient(connections);
        await tuneSqlite(client);
        return client;
      },
    },
    preparedReadsProvider,
  ],
  exports: [PrismaService, DATABASE_CONNECTIONS, PreparedReads],
})
export class DatabaseModule implements OnApplicationShutdown {
  private readonly logger = new Logger(DatabaseModule.name);

  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
    @Inject(DATABASE_CONNECTIONS) private readonly connections: DatabaseConnections,
  ) {}

  // Global modules shut down last: this runs after the HTTP server has stopped and in-flight
  // requests (and the click counter's last flush) are done. Prisma first: on PostgreSQL it runs
  // on the main pool, which is ended after it; on SQLite the background writer's final
  // checkpoint then has the file to itself.
  async onApplicationShutdown(): Promise<void> {
    await this.prisma.$disconnect();
    await this.connections.close();
    this.logger.log('Database connection closed');
  }
}
