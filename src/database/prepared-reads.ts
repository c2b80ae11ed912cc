import { byDatabaseKind } from './database-connections.js';
import type { PostgresPool } from './postgres-pools.js';
import type { SqliteReader } from './sqlite-reader.js';

/**
 * One read written for each database kind (their SQL differs in dates and functions), answering
 * rows of type `Row` (named by the queries' column aliases). Both take their parameters as `$1`,
 * `$2`…, which better-sqlite3 binds by name, so one may be used more than once.
 */
export interface PreparedRead<Row> {
  /** The name of PostgreSQL's prepared statement, unique per query text. */
  readonly name: string;
  readonly sqlite: string;
  readonly postgresql: string;
  /** Never set: carries `Row` for the type checker. */
  readonly row?: Row;
}

export function preparedRead<Row>(read: { name: string; sqlite: string; postgresql: string }): PreparedRead<Row> {
  return read;
}

/**
 * Single-row reads that bypass Prisma, for the repositories of features whose reads run on every
 * request (the API token, the dashboard's session) or were measured too slow through Prisma (a
 * link's clicks): through Prisma, interpreting the query cost more than the rest of a list
 * call's database work. A kept statement on SQLite's read-only handle or a named prepared
 * statement on PostgreSQL's main pool, chosen once (`preparedReadsProvider`). Each read sees the
 * latest commit, so a revoked token or an ended session is refused by the very next request on
 * every instance.
 */
export abstract class PreparedReads {
  /** The first row the read answers; undefined when none. */
  abstract first<Row>(read: PreparedRead<Row>, params: unknown[]): Promise<Row | undefined>;
}

class SqlitePreparedReads extends PreparedReads {
  constructor(private readonly reader: SqliteReader) {
    super();
  }

  first<Row>(read: PreparedRead<Row>, params: unknown[]): Promise<Row | undefined> {
    try {
      const named = Object.fromEntries(params.map((value, index) => [index + 1, value]));
      return Promise.resolve(this.reader.get<Row>(read.sqlite, named));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }
}

class PostgresPreparedReads extends PreparedReads {
  constructor(private readonly pool: PostgresPool) {
    super();
  }

  async first<Row>(read: PreparedRead<Row>, params: unknown[]): Promise<Row | undefined> {
    const { rows } = await this.pool.query<Row & object>({ name: read.name, text: read.postgresql, values: params });
    return rows[0];
  }
}

export const preparedReadsProvider = byDatabaseKind(PreparedReads, {
  sqlite: ({ reader }) => new SqlitePreparedReads(reader),
  postgresql: ({ main }) => new PostgresPreparedReads(main),
});
