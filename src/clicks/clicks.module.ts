import { Module } from '@nestjs/common';
import { byDatabaseKind } from '../database/database-connections.js';
import { PrismaService } from '../database/prisma.service.js';
import { ClickCounter } from './click-counter.js';
import { ClickSink } from './click-sink.js';
import { ClicksController } from './clicks.controller.js';
import { ClicksRepository } from './clicks.repository.js';
import { ClicksService } from './clicks.service.js';
import { LoggedClicks } from './logged-clicks.js';
import { PostgresClickSink } from './postgres-click-sink.js';
import { SqliteClickSink } from './sqlite-click-sink.js';
import { VisitorLabels } from './visitors/visitor-labels.service.js';

/**
 * Everything about clicks: counting redirects (ClickCounter, labelling them with VisitorLabels), writing them (one ClickSink per
 * database kind, chosen here once) and reading them (ClicksService: the analytics endpoints, the
 * dashboard, and the `clicks` of the link resource through LoggedClicks).
 */
@Module({
  controllers: [ClicksController],
  providers: [
    ClickCounter,
    ClicksRepository,
    ClicksService,
    LoggedClicks,
    VisitorLabels,
    byDatabaseKind(ClickSink, {
      inject: [PrismaService, LoggedClicks],
      sqlite: ({ writer }, prisma: PrismaService, logged: LoggedClicks) => new SqliteClickSink(prisma, writer, logged),
      postgresql: ({ hot }) => new PostgresClickSink(hot),
    }),
  ],
  exports: [ClickCounter, ClicksService, LoggedClicks],
})
export class ClicksModule {}
