import { Inject, Injectable, Logger } from '@nestjs/common';
import pg from 'pg';
import type { PostgresConnection } from '../../prisma/engine/database-url.js';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.tokens.js';

/**
 * Connections of the hot pool: a redirect lookup batch holds one for a single short query, a
 * click flush one per transaction of `CLICK_FLUSH_BATCH_SIZE` codes (one flush at a time).
 */
const HOT_POOL_SIZE = 4;

/** Connections of Prisma's pool, which link inserts share (each waits for a commit's fsync). */
const PRISMA_POOL_SIZE = 10;

/**
 * PostgreSQL straight through the `pg` driver, for the statements the service runs thousands of
 * times a second: cold lookups (`RedirectLookup`), click flushes (`PostgresClickSink.addClicks`)
 * and link inserts (`LinksRepository`). Everything else goes through Prisma, whose query
 * interpretation and parameter conversion across the driver adapter cost many times more CPU
 * than these short prepared statements themselves (docs/performance.md).
 *
 * Two pools, both undefined on SQLite:
 * - `hotPool`, small, for the redirect path's short statements, so that they never queue behind
 *   API requests;
 * - `prismaPool`, the connections Prisma's driver adapter runs on (`createDatabaseClient`), also
 *   used for link inserts: a creation is one statement that waits for its commit, like the API's
 *   other writes, and sharing the pool adds no connections.
 *
 * Owned by the global DatabaseModule, which ends them at shutdown after the feature modules'
 * hooks (i.e. after the last click flush) and after Prisma has disconnected.
 */
@Injectable()
export class PostgresDriver {
  private readonly logger = new Logger(PostgresDriver.name);
  readonly hotPool?: pg.Pool;
  readonly prismaPool?: pg.Pool;

  constructor(@Inject(APP_CONFIG) config: Pick<AppConfig, 'database'>) {
    if (config.database.kind !== 'postgresql') return;
    this.hotPool = this.createPool(config.database.connection, HOT_POOL_SIZE, 'redirect path');
    this.prismaPool = this.createPool(config.database.connection, PRISMA_POOL_SIZE, 'Prisma');
  }

  async close(): Promise<void> {
    await Promise.all([this.hotPool?.end(), this.prismaPool?.end()]);
  }

  // The settings the migrator connects with (config.database): same host, TLS and timeout, and
  // `?schema=` as every connection's search_path, set in its startup packet (no extra round trip).
  private createPool(connection: PostgresConnection, max: number, role: string): pg.Pool {
    const pool = new pg.Pool({ ...connection, max });
    // An idle connection that breaks (database restart, network cut) is reported here; the pool
    // discards it and opens a new one when needed. Without a listener the 'error' event would
    // crash the process.
    pool.on('error', (error) => this.logger.warn(`Idle PostgreSQL connection (${role}) failed: ${error.message}`));
    return pool;
  }
}
