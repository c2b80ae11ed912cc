import DataLoader from 'dataloader';
import { byDatabaseKind } from '../database/database-connections.js';
import type { PostgresPool } from '../database/postgres-pools.js';
import type { SqliteReader } from '../database/sqlite-reader.js';
import { linkRules, type LinkRules } from '../links/link-cache.js';

/** What a redirect needs of a link. */
export interface LinkTarget {
  url: string;
  /** `expires_at` in ms since the epoch; Infinity when the link never expires. */
  expiresAt: number;
  /** Its password or device targets; undefined for a plain link. */
  rules: LinkRules | undefined;
}

/** The columns of a link's rules, as both lookups select them. */
interface RuleColumns {
  passwordHash: string | null;
  iosUrl: string | null;
  androidUrl: string | null;
  /** `disabled_at IS NOT NULL`: SQLite answers 0/1, PostgreSQL a boolean. */
  disabled: boolean | number;
}

/**
 * The code → target read behind every redirect the cache misses, straight through the database
 * driver with a prepared statement, one implementation per database kind (`redirectLookupProvider`).
 *
 * Why not Prisma: a one-row query through the Prisma client costs many times the read itself
 * (query interpretation, parameter and result conversion across the driver adapter), and with
 * the cache off that CPU, not the database, would bound cold redirects (docs/performance.md).
 */
export abstract class RedirectLookup {
  /** The target URL, expiry and rules of `code`, or null when no such link exists. */
  abstract findTarget(code: string): Promise<LinkTarget | null>;
}

const SQLITE_TARGET = `SELECT url, expires_at AS expiresAt, password_hash AS passwordHash, ios_url AS iosUrl,
  android_url AS androidUrl, disabled_at IS NOT NULL AS disabled FROM links WHERE code = ?`;

/**
 * SQLite: the lookups' read-only handle (`SqliteConnections.lookups`, with a small page cache of
 * its own). Each lookup is a read transaction of its own, so it always sees the latest commit;
 * sharing one read transaction among the lookups of an event-loop turn was measured and bought
 * nothing measurable (docs/performance.md).
 */
export class SqliteRedirectLookup extends RedirectLookup {
  constructor(private readonly reader: SqliteReader) {
    super();
  }

  findTarget(code: string): Promise<LinkTarget | null> {
    try {
      const row = this.reader.get<{ url: string; expiresAt: string | null } & RuleColumns>(SQLITE_TARGET, code);
      if (row === undefined) return Promise.resolve(null);
      // Stored as Prisma's SQLite adapter writes DateTime: ISO 8601 text with its offset.
      return Promise.resolve({
        url: row.url,
        expiresAt: row.expiresAt === null ? Infinity : Date.parse(row.expiresAt),
        rules: linkRules(row.passwordHash, row.iosUrl, row.androidUrl, row.disabled === 1),
      });
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }
}

/** Codes per PostgreSQL lookup query at most; a larger burst becomes several queries. */
const POSTGRES_BATCH_SIZE = 256;

/**
 * PostgreSQL: the hot pool (`PostgresPools.hot`) and a named prepared statement (parsed and
 * planned once per connection). The misses of one event-loop turn go to the database as one query
 * (`code = ANY($1)`, through DataLoader with its cache off: the link cache is the cache). Each
 * query costs a round trip and the server's per-statement work, whatever the number of codes,
 * so under load batching multiplies the cold redirects one connection can serve; a lone request
 * waits for nothing (the batch is sent at the end of the turn it arrived in). A database that
 * cannot be reached fails the lookups with `DatabaseUnavailableError` (503); the pool replaces
 * broken connections, so lookups recover by themselves when it comes back.
 */
export class PostgresRedirectLookup extends RedirectLookup {
  private readonly targets: DataLoader<string, LinkTarget | null>;

  constructor(private readonly pool: PostgresPool) {
    super();
    this.targets = new DataLoader((codes) => this.queryTargets(codes), {
      cache: false,
      maxBatchSize: POSTGRES_BATCH_SIZE,
      // After the I/O phase of this turn: every request parsed in it joins the batch.
      batchScheduleFn: (dispatch) => setImmediate(dispatch),
    });
  }

  findTarget(code: string): Promise<LinkTarget | null> {
    return this.targets.load(code);
  }

  /** One query for a batch of codes; the answers in the order of `codes` (null: no such link). */
  private async queryTargets(codes: readonly string[]): Promise<(LinkTarget | null)[]> {
    // `expires_at` is a UTC timestamp without a zone: its epoch is read as UTC, whatever the
    // process's time zone (the driver would parse the timestamp itself in local time).
    const { rows } = await this.pool.query<{ code: string; url: string; expiresAt: number | null } & RuleColumns>({
      name: 'redirect-targets',
      text: `SELECT code, url, (extract(epoch FROM expires_at) * 1000)::float8 AS "expiresAt",
          password_hash AS "passwordHash", ios_url AS "iosUrl", android_url AS "androidUrl",
          disabled_at IS NOT NULL AS disabled
        FROM links WHERE code = ANY($1::text[])`,
      values: [codes],
    });
    const targets = new Map<string, LinkTarget>();
    for (const row of rows) {
      targets.set(row.code, {
        url: row.url,
        expiresAt: row.expiresAt ?? Infinity,
        rules: linkRules(row.passwordHash, row.iosUrl, row.androidUrl, row.disabled === true),
      });
    }
    return codes.map((code) => targets.get(code) ?? null);
  }
}

export const redirectLookupProvider = byDatabaseKind(RedirectLookup, {
  sqlite: ({ lookups }) => new SqliteRedirectLookup(lookups),
  postgresql: ({ hot }) => new PostgresRedirectLookup(hot),
});
