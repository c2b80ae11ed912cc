import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.tokens.js';
import { sqliteFilePath } from '../database/prisma-client.factory.js';

/** Connections of the PostgreSQL lookup pool: each lookup holds one for a single short query. */
const POSTGRES_POOL_SIZE = 4;

/**
 * The code → target read behind every redirect the cache misses, straight through the database
 * driver with a prepared statement; everything else (writes, the API) goes through Prisma.
 *
 * Why not Prisma: a one-row raw query through the Prisma client costs ~90–145 µs of CPU per
 * lookup on the benchmark machine (query interpretation, parameter and result conversion across
 * the driver adapter), against ~5 µs for a better-sqlite3 prepared statement. With the cache off
 * that CPU bounded cold redirects at ~5,500 req/s on SQLite and 3,300–4,600 on PostgreSQL.
 *
 * - SQLite: a second, read-only handle on the same file. WAL mode (set by the app's Prisma
 *   client, see `tuneSqlite`) lets it read while the other connection writes, and a reader never
 *   blocks the writer. better-sqlite3 is synchronous: acceptable for a microsecond-scale
 *   primary-key read. The handle is opened on first use, i.e. after the app has created the file
 *   and switched it to WAL; a failed open is retried by the next lookup.
 * - PostgreSQL: a small pool of its own and a named prepared statement (parsed and planned once
 *   per connection). Failures surface as the driver's errors (`ECONNREFUSED`, `57P01`, …), which
 *   `toProblem` answers with 503; the pool replaces broken connections, so lookups recover by
 *   themselves when the database comes back.
 */
@Injectable()
export class RedirectLookup implements OnApplicationShutdown {
  private readonly logger = new Logger(RedirectLookup.name);
  private readonly pool?: pg.Pool;
  private sqlite?: { db: Database.Database; statement: Database.Statement<[string], string> };

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    if (config.databaseKind === 'postgresql') {
      this.pool = new pg.Pool({
        connectionString: config.databaseUrl,
        max: POSTGRES_POOL_SIZE,
        connectionTimeoutMillis: 5000,
      });
      // An idle connection that breaks (database restart, network cut) is reported here; the
      // pool discards it. Without a listener the 'error' event would crash the process.
      this.pool.on('error', (error) => this.logger.warn(`Idle redirect lookup connection failed: ${error.message}`));
    }
  }

  /** The target URL of `code`, or null when no such link exists. */
  async findTarget(code: string): Promise<string | null> {
    if (this.pool) {
      const result = await this.pool.query<[string]>({
        name: 'redirect-target',
        text: 'SELECT url FROM links WHERE code = $1',
        values: [code],
        rowMode: 'array',
      });
      return result.rows[0]?.[0] ?? null;
    }
    return this.sqliteStatement().get(code) ?? null;
  }

  private sqliteStatement(): Database.Statement<[string], string> {
    if (!this.sqlite) {
      const db = new Database(sqliteFilePath(this.config.databaseUrl), {
        readonly: true,
        fileMustExist: true,
        timeout: 5000,
      });
      try {
        const statement = db.prepare<[string], string>('SELECT url FROM links WHERE code = ?').pluck();
        this.sqlite = { db, statement };
      } catch (error) {
        db.close();
        throw error;
      }
    }
    return this.sqlite.statement;
  }

  // Runs after the HTTP server has closed, so no lookup is in flight.
  async onApplicationShutdown(): Promise<void> {
    this.sqlite?.db.close();
    this.sqlite = undefined;
    await this.pool?.end();
  }
}
