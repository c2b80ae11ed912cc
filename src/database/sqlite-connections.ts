import { SqliteBackgroundWriter } from './sqlite-background-writer.js';
import { SqliteReader } from './sqlite-reader.js';

/**
 * Bytes of the file the redirect lookups read through a memory map. Over many links most lookups
 * miss SQLite's own page cache (which it also empties whenever another connection commits, i.e.
 * after every click batch or new link), and each missed page was a pread() system call and a
 * copy; mapped, a page is read in place.
 */
const LOOKUP_MMAP_BYTES = 1024 ** 3;

/**
 * The service's own SQLite connections beside Prisma's, opened only when DATABASE_URL is SQLite
 * (see `openDatabaseConnections`). All open lazily, on first use, so a CLI command that needs none
 * costs nothing.
 * - `reader`: read-only, for the API's reads (lists, searches, the token and session, a link's
 *   clicks), through SQLite's page cache.
 * - `lookups`: read-only, for the redirects' point lookups, through a memory map. Two handles of
 *   one class because the map is what makes cold lookups fast over a large file, while for the
 *   API's scans (a search reads every link of an account) it put every page touched into the
 *   process's RSS: 40-50 MiB more at 100k links, measured side by side (docs/performance.md).
 * - `writer`: the background writer's thread, for the hot writes.
 */
export class SqliteConnections {
  readonly kind = 'sqlite';
  readonly reader: SqliteReader;
  readonly lookups: SqliteReader;
  readonly writer: SqliteBackgroundWriter;

  constructor(readonly file: string) {
    this.reader = new SqliteReader(file, { mmapBytes: 0 });
    this.lookups = new SqliteReader(file, { mmapBytes: LOOKUP_MMAP_BYTES });
    this.writer = new SqliteBackgroundWriter(file);
  }

  /** The readers first: the writer's final checkpoint can then truncate the WAL. */
  async close(): Promise<void> {
    this.reader.close();
    this.lookups.close();
    await this.writer.close();
  }
}
