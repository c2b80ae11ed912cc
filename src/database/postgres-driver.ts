import { Inject, Injectable, Logger } from '@nestjs/common';
import pg from 'pg';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.tokens.js';

/**
 * Connections of the pool: a redirect lookup batch holds one for a single short query, a click
 * flush one per transaction of `CLICK_FLUSH_BATCH_SIZE` codes (one flush at a time).
 */
const POOL_SIZE = 4;

/**
 * PostgreSQL straight through the `pg` driver, for the two statements the redirect path runs
 * thousands of times a second: cold lookups (`RedirectLookup`) and click flushes
 * (`RedirectRepository.addClicks`). Everything else goes through Prisma, whose query
 * interpretation and parameter conversion across the driver adapter cost more CPU than these
 * queries themselves (a lookup: ~90–145 µs through Prisma; a flushed click count: ~3.1 µs of the
 * service's CPU through Prisma, ~0.8 µs through this pool).
 *
 * `pool` is undefined on SQLite. Owned by the global DatabaseModule, which ends it at shutdown
 * after the feature modules' hooks, i.e. after the last click flush.
 */
@Injectable()
export class PostgresDriver {
  private readonly logger = new Logger(PostgresDriver.name);
  readonly pool?: pg.Pool;

  constructor(@Inject(APP_CONFIG) config: Pick<AppConfig, 'databaseKind' | 'databaseUrl'>) {
    if (config.databaseKind !== 'postgresql') return;
    this.pool = new pg.Pool({ connectionString: config.databaseUrl, max: POOL_SIZE, connectionTimeoutMillis: 5000 });
    // An idle connection that breaks (database restart, network cut) is reported here; the pool
    // discards it and opens a new one when needed. Without a listener the 'error' event would
    // crash the process.
    this.pool.on('error', (error) => this.logger.warn(`Idle PostgreSQL driver connection failed: ${error.message}`));
  }

  async close(): Promise<void> {
    await this.pool?.end();
  }
}
