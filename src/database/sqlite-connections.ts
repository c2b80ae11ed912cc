import { SqliteBackgroundWriter } from './sqlite-background-writer.js';
import { SqliteReader } from './sqlite-reader.js';

/**
 * The redirect lookups' page cache (KiB): SQLite's own default. Over many links most lookups miss
 * it whatever its size, and it is emptied whenever another connection commits (every click batch
 * and new link), so only the code index's upper pages stay in it between commits. Read through a
 * memory map instead, a lookup cost no system call per page, but the kernel maps up to 16 cached
 * pages around each one touched ("fault-around"): 1,000 lookups spread over 100k links put 35 MiB
 * of the file into the process's RSS (docs/performance.md, "Memory").
 */
const LOOKUP_CACHE_KIB = 2000;

/**
 * The service's own SQLite connections beside Prisma's, opened only when DATABASE_URL is SQLite
 * (see `openDatabaseConnections`). All open lazily, on first use, so a CLI command that needs none
 * costs nothing.
 * - `reader`: read-only, for the API's reads (lists, searches, the token and session, a link's
 *   clicks), through SQLite's page cache.
 * - `lookups`: read-only, for the redirects' point lookups, through a small page cache. Two
 *   handles of one class so that the API's scans (a search reads every link of an account) keep
 *   the reader's 16 MB cache to themselves, and a burst of cold lookups does not empty it.
 * - `writer`: the background writer's thread, for the hot writes.
 */
export class SqliteConnections {
  readonly kind = 'sqlite';
  readonly reader: SqliteReader;
  readonly lookups: SqliteReader;
  readonly writer: SqliteBackgroundWriter;

  constructor(readonly file: string) {
    this.reader = new SqliteReader(file, {});
    this.lookups = new SqliteReader(file, { cacheKiB: LOOKUP_CACHE_KIB });
    this.writer = new SqliteBackgroundWriter(file);
  }

  /** The readers first: the writer's final checkpoint can then truncate the WAL. */
  async close(): Promise<void> {
    this.reader.close();
    this.lookups.close();
    await this.writer.close();
  }
}
