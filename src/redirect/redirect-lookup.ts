import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import Database from 'better-sqlite3';
import DataLoader from 'dataloader';
import type pg from 'pg';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.tokens.js';
import { PostgresDriver } from '../database/postgres-driver.js';
import { sqliteFilePath } from '../../prisma/engine/database-url.js';

/** Codes per PostgreSQL lookup query at most; a larger burst becomes several queries. */
const POSTGRES_BATCH_SIZE = 256;
/**
 * Bytes of the SQLite file the lookup handle reads through a memory map (see `sqliteLookup`).
 * Address space, not memory: the pages are the OS's page cache, shared, and dropped under
 * pressure like any cached file page (they do show in the process's RSS).
 */
const SQLITE_MMAP_BYTES = 1024 ** 3;

/** The SQLite lookup handle, its statements, and the read transaction of the current turn. */
interface SqliteLookup {
  db: Database.Database;
  target: Database.Statement<[string], string>;
  begin: Database.Statement;
  commit: Database.Statement;
  /** The cache generation the open read transaction started at; undefined: none is open. */
  generation: number | undefined;
  /** Whether a lookup has read in the open read transaction (so its snapshot is taken). */
  used: boolean;
  endScheduled: boolean;
}

/**
 * The code → target read behind every redirect the cache misses, straight through the database
 * driver with a prepared statement; everything else (writes, the API) goes through Prisma.
 *
 * Why not Prisma: a one-row query through the Prisma client costs many times the read itself
 * (query interpretation, parameter and result conversion across the driver adapter), and with
 * the cache off that CPU, not the database, would bound cold redirects (docs/performance.md).
 *
 * - SQLite: a second, read-only handle on the same file. WAL mode (set by the app's Prisma
 *   client, see `tuneSqlite`) lets it read while the other connection writes, and a reader never
 *   blocks the writer. better-sqlite3 is synchronous: acceptable for a microsecond-scale
 *   primary-key read. The handle is opened on first use, i.e. after the app has created the file
 *   and switched it to WAL; a failed open is retried by the next lookup.
 * - PostgreSQL: the driver's pool (`PostgresDriver`) and a named prepared statement (parsed and
 *   planned once per connection). The misses of one event-loop turn go to the database as one query
 *   (`code = ANY($1)`, through DataLoader with its cache off: the link cache is the cache). Each
 *   query costs a round trip and the server's per-statement work, whatever the number of codes,
 *   so under load batching multiplies the cold redirects one connection can serve; a lone
 *   request waits for nothing (the batch is sent at the end of the turn it arrived in).
 *   Failures surface as the driver's errors (`ECONNREFUSED`, `57P01`, …), which `toProblem`
 *   answers with 503; the pool replaces broken connections, so lookups recover by themselves
 *   when the database comes back.
 */
@Injectable()
export class RedirectLookup implements OnApplicationShutdown {
  private readonly logger = new Logger(RedirectLookup.name);
  private readonly pool?: pg.Pool;
  private readonly postgresTargets?: DataLoader<string, string | null>;
  private sqlite?: SqliteLookup;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    postgres: PostgresDriver,
  ) {
    this.pool = postgres.hotPool;
    if (this.pool) {
      this.postgresTargets = new DataLoader((codes) => this.queryPostgresTargets(codes), {
        cache: false,
        maxBatchSize: POSTGRES_BATCH_SIZE,
        // After the I/O phase of this turn: every request parsed in it joins the batch.
        batchScheduleFn: (dispatch) => setImmediate(dispatch),
      });
    }
  }

  /**
   * The target URL of `code`, or null when no such link exists. `generation`: the link cache's
   * (`LinkCache.generation()`), taken before the call; on SQLite a lookup never reads a snapshot
   * older than the last invalidation it counts (see `findSqliteTarget`).
   */
  async findTarget(code: string, generation: number): Promise<string | null> {
    if (this.postgresTargets) return this.postgresTargets.load(code);
    return this.findSqliteTarget(code, generation);
  }

  /**
   * SQLite: the lookups of one event-loop turn share one read transaction, ended once the turn's
   * I/O callbacks have run (`setImmediate`). A lookup in a transaction of its own took and
   * released SQLite's locks each time (file locks, the WAL's read mark, and the per-file mutex
   * the background writer's connection takes too): about 6 % of the event loop's CPU per cold
   * redirect over 10k links, more while the writer was busy.
   *
   * Never staler than before:
   * - every change this service makes to a link (create, update, delete) invalidates its code
   *   after the commit and moves the cache generation on; a lookup that brings a newer generation
   *   than the transaction's starts a new one, whose snapshot has the change;
   * - a code not found in a snapshot that earlier lookups have used is looked up again in a new
   *   one, so a miss is as fresh as a read of its own.
   * A request read in a later turn always gets a later snapshot.
   */
  private findSqliteTarget(code: string, generation: number): string | null {
    const sqlite = this.sqliteLookup();
    if (sqlite.generation !== generation) this.beginTurnRead(sqlite, generation);
    const fresh = !sqlite.used;
    sqlite.used = true;
    const target = sqlite.target.get(code);
    if (target !== undefined) return target;
    if (fresh) return null;
    this.beginTurnRead(sqlite, generation);
    sqlite.used = true;
    return sqlite.target.get(code) ?? null;
  }

  private beginTurnRead(sqlite: SqliteLookup, generation: number): void {
    if (sqlite.db.inTransaction) sqlite.commit.run();
    // DEFERRED: the snapshot is taken by the first read, after this.
    sqlite.begin.run();
    sqlite.generation = generation;
    sqlite.used = false;
    if (sqlite.endScheduled) return;
    sqlite.endScheduled = true;
    setImmediate(() => {
      sqlite.endScheduled = false;
      sqlite.generation = undefined;
      if (this.sqlite !== sqlite || !sqlite.db.inTransaction) return;
      try {
        sqlite.commit.run();
      } catch (error) {
        // Ending a read cannot lose anything; a handle that cannot is replaced by the next lookup.
        this.logger.warn(`Redirect lookup handle failed, reopening it: ${String(error)}`);
        this.sqlite = undefined;
        sqlite.db.close();
      }
    });
  }

  /** One query for a batch of codes; the answers in the order of `codes` (null: no such link). */
  private async queryPostgresTargets(codes: readonly string[]): Promise<(string | null)[]> {
    const result = await this.pool!.query<[string, string]>({
      name: 'redirect-targets',
      text: 'SELECT code, url FROM links WHERE code = ANY($1::text[])',
      values: [codes],
      rowMode: 'array',
    });
    const targets = new Map(result.rows);
    return codes.map((code) => targets.get(code) ?? null);
  }

  private sqliteLookup(): SqliteLookup {
    if (!this.sqlite) {
      const db = new Database(sqliteFilePath(this.config.databaseUrl), {
        readonly: true,
        fileMustExist: true,
        timeout: 5000,
      });
      try {
        // Over many links most lookups miss SQLite's own page cache (which it also empties
        // whenever another connection commits, i.e. after every click batch or new link), and
        // each missed page was a pread() system call and a copy. Mapped, a page is read in place,
        // which matters most when the file is far larger than SQLite's page cache.
        db.pragma(`mmap_size = ${SQLITE_MMAP_BYTES}`);
        this.sqlite = {
          db,
          target: db.prepare<[string], string>('SELECT url FROM links WHERE code = ?').pluck(),
          begin: db.prepare('BEGIN'),
          commit: db.prepare('COMMIT'),
          generation: undefined,
          used: false,
          endScheduled: false,
        };
      } catch (error) {
        db.close();
        throw error;
      }
    }
    return this.sqlite;
  }

  // Runs after the HTTP server has closed, so no lookup is in flight. (The PostgreSQL pool is
  // the DatabaseModule's to end.)
  onApplicationShutdown(): void {
    this.sqlite?.db.close();
    this.sqlite = undefined;
  }
}
