import { Logger } from '@nestjs/common';
import pg from 'pg';
import type { PostgresConnection, PostgresDatabase } from '../../prisma/engine/database-url.js';
import { DatabaseUnavailableError, isUnavailableSqlState } from './database-unavailable.js';

/**
 * Connections of the hot pool: a redirect lookup batch holds one for a single short query, a
 * click flush one per transaction of `CLICK_FLUSH_BATCH_SIZE` codes (one flush at a time).
 */
const HOT_POOL_SIZE = 4;

/** Connections of the main pool: Prisma's, which the stores' API statements share. */
const MAIN_POOL_SIZE = 10;

/** node-postgres' own connection failures, which carry no code (pg/lib/client.js, pg-pool). */
const PG_CONNECTION_FAILURE =
  /^(Connection terminated( unexpectedly| due to connection timeout)?|timeout exceeded when trying to connect|Client has encountered a connection error and is not queryable)$/;

/** Whether a `pg` driver error says the server cannot be reached right now. */
function isUnavailable(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' ? message : '';
  if (PG_CONNECTION_FAILURE.test(text)) return true;
  if (typeof code !== 'string') return false;
  return /^(ECONNREFUSED|ECONNRESET|ETIMEDOUT|EPIPE)$/.test(code) || isUnavailableSqlState(code, text);
}

/**
 * One `pg` pool as the stores use it: named prepared statements, and the driver's connection
 * failures reported as `DatabaseUnavailableError` (answered 503). The pool replaces broken
 * connections, so queries recover by themselves when the database comes back.
 */
export class PostgresPool {
  constructor(readonly pool: pg.Pool) {}

  async query<Row extends pg.QueryResultRow>(config: pg.QueryConfig): Promise<pg.QueryResult<Row>> {
    try {
      return await this.pool.query<Row>(config);
    } catch (error) {
      throw isUnavailable(error) ? new DatabaseUnavailableError(error) : error;
    }
  }
}

/**
 * The service's PostgreSQL connections: two `pg` pools, opened only when DATABASE_URL is
 * PostgreSQL (see `openDatabaseConnections`).
 * - `main`: the connections Prisma's driver adapter runs on (`createDatabaseClient`), which the
 *   PostgreSQL stores' API statements (link inserts, lists, token and session reads) share: each
 *   is one statement like the API's other queries, and sharing adds no connections.
 * - `hot`: small, for the redirect path's short statements (cold lookups, click flushes), so
 *   that they never queue behind API requests.
 *
 * Both take the settings the migrator connects with (config.database): same host, TLS and
 * timeout, and `?schema=` as every connection's search_path, set in its startup packet (no extra
 * round trip). Ended by the DatabaseModule at shutdown, after Prisma has disconnected.
 */
export class PostgresPools {
  readonly kind = 'postgresql';
  private readonly logger = new Logger(PostgresPools.name);
  readonly main: PostgresPool;
  readonly hot: PostgresPool;
  /** `?schema=`: the only schema on every connection's search_path, and the one Prisma names. */
  readonly schema: string;
  /** The settings every connection is opened with, for a connection of one's own (LISTEN). */
  readonly connection: PostgresConnection;

  constructor(database: PostgresDatabase) {
    this.schema = database.schema;
    this.connection = database.connection;
    this.main = new PostgresPool(this.createPool(database.connection, MAIN_POOL_SIZE, 'main'));
    this.hot = new PostgresPool(this.createPool(database.connection, HOT_POOL_SIZE, 'redirect path'));
  }

  /** A connection of its own, outside the pools, with their settings (a LISTEN needs one). */
  newClient(): pg.Client {
    return new pg.Client(this.connection);
  }

  async close(): Promise<void> {
    await Promise.all([this.hot.pool.end(), this.main.pool.end()]);
  }

  private createPool(connection: PostgresConnection, max: number, role: string): pg.Pool {
    const pool = new pg.Pool({ ...connection, max });
    // An idle connection that breaks (database restart, network cut) is reported here; the pool
    // discards it and opens a new one when needed. Without a listener the 'error' event would
    // crash the process.
    pool.on('error', (error) => this.logger.warn(`Idle PostgreSQL connection (${role}) failed: ${error.message}`));
    return pool;
  }
}
