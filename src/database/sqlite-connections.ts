import { SqliteBackgroundWriter } from './sqlite-background-writer.js';
import { SqliteReader } from './sqlite-reader.js';

/**
 * The service's own SQLite connections beside Prisma's, opened only when DATABASE_URL is SQLite
 * (see `openDatabaseConnections`): one read-only handle for the hot reads (`reader`) and the
 * background writer's thread for the hot writes (`writer`). Both open lazily, on first use, so a
 * CLI command that needs neither costs nothing.
 */
export class SqliteConnections {
  readonly kind = 'sqlite';
  readonly reader: SqliteReader;
  readonly writer: SqliteBackgroundWriter;

  constructor(readonly file: string) {
    this.reader = new SqliteReader(file);
    this.writer = new SqliteBackgroundWriter(file);
  }

  /** The reader first: the writer's final checkpoint can then truncate the WAL. */
  async close(): Promise<void> {
    this.reader.close();
    await this.writer.close();
  }
}
