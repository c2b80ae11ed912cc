import { Inject, Injectable, OnApplicationShutdown } from '@nestjs/common';
import Database from 'better-sqlite3';
import DataLoader from 'dataloader';
import type pg from 'pg';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.tokens.js';
import { PostgresDriver } from '../database/postgres-driver.js';
import { sqliteFileOf } from '../../prisma/engine/database-url.js';

/** Codes per PostgreSQL lookup query at most; a larger burst becomes several queries. */
const POSTGRES_BATCH_SIZE = 256;
/**
 * Bytes of the SQLite file the lookup handle reads through a memory map (see `sqliteLookup`).
 * Address space, not memory: the pages are the OS's page cache, shared, and dropped under
 * pressure like any cached file page (they do show in the process's RSS).
 */
const SQLITE_MMAP_BYTES = 1024 ** 3;

/** What a redirect needs of a link. */
export interface LinkTarget {
  url: string;
  /** `expires_at` in ms since the epoch; Infinity when the link never expires. */
  expiresAt: number;
}

/** The SQLite lookup handle and its statement. */
interface SqliteLookup {
  db: Database.Database;
  target: Database.Statement<[string], { url: string; expires_at: string | null }>;
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
  private readonly pool?: pg.Pool;
  private readonly postgresTargets?: DataLoader<string, LinkTarget | null>;
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

  /** The target URL and expiry of `code`, or null when no such link exists. */
  async findTarget(code: string): Promise<LinkTarget | null> {
    if (this.postgresTargets) return this.postgresTargets.load(code);
    // SQLite: each lookup is a read transaction of its own, so it always sees the latest commit.
    // Sharing one read transaction among the lookups of an event-loop turn was measured and
    // bought nothing measurable (docs/performance.md).
    const row = this.sqliteLookup().target.get(code);
    if (row === undefined) return null;
    // Stored as Prisma's SQLite adapter writes DateTime: ISO 8601 text with its offset.
    return { url: row.url, expiresAt: row.expires_at === null ? Infinity : Date.parse(row.expires_at) };
  }

  /** One query for a batch of codes; the answers in the order of `codes` (null: no such link). */
  private async queryPostgresTargets(codes: readonly string[]): Promise<(LinkTarget | null)[]> {
    // `expires_at` is a UTC timestamp without a zone: its epoch is read as UTC, whatever the
    // process's time zone (the driver would parse the timestamp itself in local time).
    const result = await this.pool!.query<[string, string, number | null]>({
      name: 'redirect-targets',
      text: `SELECT code, url, (extract(epoch FROM expires_at) * 1000)::float8
        FROM links WHERE code = ANY($1::text[])`,
      values: [codes],
      rowMode: 'array',
    });
    const targets = new Map<string, LinkTarget>();
    for (const [code, url, expiresAt] of result.rows) {
      targets.set(code, { url, expiresAt: expiresAt ?? Infinity });
    }
    return codes.map((code) => targets.get(code) ?? null);
  }

  private sqliteLookup(): SqliteLookup {
    if (!this.sqlite) {
      const db = new Database(sqliteFileOf(this.config.database), {
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
          target: db.prepare<[string], { url: string; expires_at: string | null }>(
            'SELECT url, expires_at FROM links WHERE code = ?',
          ),
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
