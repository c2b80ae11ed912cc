import Database from 'better-sqlite3';
import { DatabaseUnavailableError } from './database-unavailable.js';

/** How a read-only handle reads the file. */
export interface SqliteReaderOptions {
  /**
   * The most SQLite's page cache of the handle holds, in KiB (unset: better-sqlite3's 16 MB).
   * Held in the process's heap once filled, and emptied whenever another connection has committed.
   */
  cacheKiB?: number;
}

/**
 * A read-only handle on the SQLite file, for the reads Prisma was measured too slow on (cold
 * redirects, lists, searches, the token and session every request presents, a link's clicks),
 * with its prepared statements kept (see SqliteConnections for the two the service opens). WAL mode (set by the app's Prisma client,
 * see `tuneSqlite`) lets it read while the writers write; each read is a transaction of its own,
 * so it sees the latest commit. better-sqlite3 is synchronous: acceptable for these indexed,
 * microsecond-scale reads. Opened on first use, i.e. after start-up has created and migrated the
 * file; a failed open is retried by the next read.
 *
 * Rows come as objects named by the query's column aliases, typed by the caller's row interface.
 * SQLITE_BUSY (locked past the timeout) is reported as `DatabaseUnavailableError`.
 */
export class SqliteReader {
  private db?: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();
  /** The same, answering arrays (raw mode is a statement's own setting, so they are kept apart). */
  private readonly rawStatements = new Map<string, Database.Statement>();

  constructor(
    private readonly file: string,
    private readonly options: SqliteReaderOptions,
  ) {}

  /** The first row `sql` answers with `params`; undefined when none. */
  get<Row>(sql: string, ...params: unknown[]): Row | undefined {
    try {
      return this.statement(sql).get(...params) as Row | undefined;
    } catch (error) {
      throw sqliteReadFailure(error);
    }
  }

  /** Every row `sql` answers with `params`. */
  all<Row>(sql: string, ...params: unknown[]): Row[] {
    try {
      return this.statement(sql).all(...params) as Row[];
    } catch (error) {
      throw sqliteReadFailure(error);
    }
  }

  /**
   * Every row as an array of its columns, in the query's order, typed by a named tuple (`Row`).
   * For the reads of many rows on the API's hot paths: better-sqlite3 builds an array per row
   * for less than an object (about 0.8 µs less per row of 8 columns, 16 µs of a 20-link page).
   */
  tuples<Row extends unknown[]>(sql: string, ...params: unknown[]): Row[] {
    try {
      return this.statement(sql, true).all(...params) as Row[];
    } catch (error) {
      throw sqliteReadFailure(error);
    }
  }

  close(): void {
    this.statements.clear();
    this.rawStatements.clear();
    this.db?.close();
    this.db = undefined;
  }

  /** The kept statement for `sql`; `raw`: one that answers arrays. */
  private statement(sql: string, raw = false): Database.Statement {
    const kept = raw ? this.rawStatements : this.statements;
    let statement = kept.get(sql);
    if (!statement) {
      statement = this.handle().prepare(sql);
      if (raw) statement.raw(true);
      kept.set(sql, statement);
    }
    return statement;
  }

  private handle(): Database.Database {
    if (!this.db) {
      const db = new Database(this.file, { readonly: true, fileMustExist: true, timeout: 5000 });
      try {
        if (this.options.cacheKiB !== undefined) db.pragma(`cache_size = -${this.options.cacheKiB}`);
      } catch (error) {
        db.close();
        throw error;
      }
      this.db = db;
    }
    return this.db;
  }
}

function sqliteReadFailure(error: unknown): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_BUSY' ? new DatabaseUnavailableError(error) : error;
}
