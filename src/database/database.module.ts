import { Global, Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.tokens.js';
import { PostgresDriver } from './postgres-driver.js';
import { DirectReads } from './direct-reads.js';
import { createDatabaseClient, tuneSqlite } from './prisma-client.factory.js';
import { PrismaService } from './prisma.service.js';
import { SqliteBackgroundWriter } from './sqlite-background-writer.js';
import { SqliteReader } from './sqlite-reader.js';

@Global()
@Module({
  providers: [
    {
      provide: PrismaService,
      inject: [APP_CONFIG, PostgresDriver],
      useFactory: async (config: AppConfig, postgres: PostgresDriver) => {
        const client = createDatabaseClient(config.database, postgres.prismaPool);
        if (config.databaseKind === 'sqlite') await tuneSqlite(client);
        return client;
      },
    },
    SqliteBackgroundWriter,
    SqliteReader,
    PostgresDriver,
    DirectReads,
  ],
  exports: [PrismaService, SqliteBackgroundWriter, SqliteReader, PostgresDriver, DirectReads],
})
export class DatabaseModule implements OnApplicationShutdown {
  private readonly logger = new Logger(DatabaseModule.name);

  constructor(
    @Inject(PrismaService) private readonly prisma: PrismaService,
    private readonly postgres: PostgresDriver,
  ) {}

  // Runs after the HTTP server has stopped and in-flight requests (and click flushes) are done.
  // Prisma first: on PostgreSQL it runs on one of the driver's pools, which are ended after it.
  async onApplicationShutdown(): Promise<void> {
    await this.prisma.$disconnect();
    await this.postgres.close();
    this.logger.log('Database connection closed');
  }
}
