import { Injectable } from '@nestjs/common';
import { PostgresDriver } from './postgres-driver.js';
import { SqliteReader } from './sqlite-reader.js';

/**
 * One read, written for each database kind (their SQL differs in dates and functions). Both
 * take their parameters as `$1`, `$2`…, which better-sqlite3 binds by name, so one may be used
 * more than once.
 */
export interface DirectRead {
  /** The name of PostgreSQL's prepared statement, unique per query text. */
  name: string;
  sqlite: string;
  postgresql: string;
}

/**
 * Reads that bypass Prisma: the lookups every request makes before its own work (the API token,
 * the dashboard's session) and a link's clicks. Each is a kept statement on SQLite's read-only
 * handle or a named prepared statement on PostgreSQL's pool; through Prisma, interpreting the
 * query cost more than the rest of a list call's database work. Each read sees the latest
 * commit, so a revoked token or an ended session is refused by the very next request on every
 * instance.
 */
@Injectable()
export class DirectReads {
  constructor(
    private readonly postgres: PostgresDriver,
    private readonly sqliteReader: SqliteReader,
  ) {}

  /** The first row the query answers, as an array of column values; undefined when none. */
  async firstRow<Row extends unknown[]>(read: DirectRead, params: unknown[]): Promise<Row | undefined> {
    if (this.postgres.prismaPool) {
      const { rows } = await this.postgres.prismaPool.query<Row>({
        name: read.name,
        text: read.postgresql,
        values: params,
        rowMode: 'array',
      });
      return rows[0];
    }
    const named = Object.fromEntries(params.map((value, index) => [index + 1, value]));
    return this.sqliteReader.rows<Row>(read.sqlite, [named])[0];
  }
}
