import { chmodSync, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { sqliteFilePath } from '../prisma/engine/database-url.js';
import { shortlinkInProcess } from './support/processes/cli-in-process.js';
import { startServerProcess, type ServerProcess } from './support/processes/server-process.js';
import { startTestApp } from './support/test-app.js';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from './support/database/test-database.js';

/** `shortlink backup`, run as a real process beside a real server under write load. */
describe('shortlink backup', () => {
  let database: TestDatabase;
  const shortlink = (args: string[]) => shortlinkInProcess(args, { DATABASE_URL: database.url });

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  if (testDatabaseKind() === 'postgresql') {
    it('says to use pg_dump on PostgreSQL and exits 1', async () => {
      const result = await shortlink(['backup', '/tmp/never-written.db']);

      expect(result.status).toBe(1);
      expect(result.stderr).toMatch(/on PostgreSQL use pg_dump/);
      expect(existsSync('/tmp/never-written.db')).toBe(false);
    });
    return;
  }

  let server: ServerProcess | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it('copies the database while links are created and clicked; the copy is intact and serves every link', async () => {
    server = await startServerProcess({
      DATABASE_URL: database.url,
      CLICK_FLUSH_INTERVAL_MS: '50',
      RATE_LIMIT_ANONYMOUS: '1000000',
    });
    const { baseUrl } = server;
    const create = async (url: string): Promise<string> => {
      const response = await fetch(`${baseUrl}/api/links`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url }),
      });
      expect(response.status).toBe(201);
      return ((await response.json()) as { code: string }).code;
    };
    const committed = new Map<string, string>();
    for (let i = 0; i < 200; i++)
      committed.set(await create(`https://example.com/before/${i}`), `https://example.com/before/${i}`);

    // Writes and clicks from four clients until the backup is done.
    let loading = true;
    let createdDuring = 0;
    const codes = [...committed.keys()];
    const load = Array.from({ length: 4 }, async (_, worker) => {
      for (let i = 0; loading; i++) {
        await create(`https://example.com/during/${worker}/${i}`);
        createdDuring++;
        await fetch(`${baseUrl}/${codes[i % codes.length]}`, { redirect: 'manual' });
      }
    });
    const file = join(dirname(sqliteFilePath(database.url)), 'backup.db');
    const result = await shortlink(['backup', file]);
    loading = false;
    await Promise.all(load);

    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^Backup written to .*backup\.db \(\d+ bytes, \d+ links, integrity ok\)\n$/);
    expect(createdDuring).toBeGreaterThan(0);
    const copy = new Database(file, { readonly: true });
    try {
      expect(copy.pragma('integrity_check', { simple: true })).toBe('ok');
      const rows = copy.prepare('SELECT code, url FROM links').all() as { code: string; url: string }[];
      const inCopy = new Map(rows.map((row) => [row.code, row.url]));
      for (const [code, url] of committed) expect(inCopy.get(code)).toBe(url);
    } finally {
      copy.close();
    }

    // A second backup to the same name is refused and leaves the file alone.
    const before = readFileSync(file);
    const again = await shortlink(['backup', file]);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/already exists/);
    expect(readFileSync(file).equals(before)).toBe(true);

    // Restored: a service started on the copy serves every link committed before the backup.
    const restored = await startTestApp({}, { url: `file:${file}`, drop: () => Promise.resolve() });
    try {
      for (const [code, url] of committed) {
        const response = await restored.request(`/${code}`, { redirect: 'manual' });
        expect(response.status).toBe(302);
        expect(response.headers.get('location')).toBe(url);
      }
    } finally {
      await restored.close();
    }
  });

  /**
   * The database holds password hashes, token hashes and webhook secrets: the files are the
   * owner's alone (0600) whatever the umask, from the first start, and a backup is too.
   */
  describe('file modes', () => {
    let umask: number;
    let own: TestDatabase;
    beforeAll(async () => {
      // The usual umask, which would leave the files readable by everyone (0644).
      umask = process.umask(0o022);
      own = await createTestDatabase();
    });
    afterAll(async () => {
      process.umask(umask);
      await own.drop();
    });
    const openToOthers = (file: string) => statSync(file).mode & 0o077;

    it('are 0600 for the database, its WAL and shared memory after start, and for a backup', async () => {
      const file = sqliteFilePath(own.url);
      server = await startServerProcess({ DATABASE_URL: own.url, RATE_LIMIT_ANONYMOUS: '1000000' });
      const response = await fetch(`${server.baseUrl}/api/links`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url: 'https://example.com/secret-keeping' }),
      });
      expect(response.status).toBe(201);

      for (const path of [file, `${file}-wal`, `${file}-shm`]) {
        expect({ path, exists: existsSync(path), openToOthers: openToOthers(path) }).toEqual({
          path,
          exists: true,
          openToOthers: 0,
        });
      }
      const copy = join(dirname(file), 'private-backup.db');
      const result = await shortlinkInProcess(['backup', copy], { DATABASE_URL: own.url });
      expect(result.status).toBe(0);
      expect(openToOthers(copy)).toBe(0);
    });

    it('tightens a database file left readable by others at the next start, and says so', async () => {
      const file = sqliteFilePath(own.url);
      chmodSync(file, 0o644);

      server = await startServerProcess({ DATABASE_URL: own.url });

      expect(openToOthers(file)).toBe(0);
      // The start-up's own lines go to stderr (src/main.ts).
      expect(server.output().stderr).toContain(`Restricted ${file} to mode 0600 (it was 0644)`);
    });
  });

  it('refuses a folder that does not exist, and leaves no partial file behind', async () => {
    server = await startServerProcess({ DATABASE_URL: database.url });
    const folder = dirname(sqliteFilePath(database.url));
    const missing = await shortlink(['backup', join(folder, 'no-such-folder', 'b.db')]);

    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/does not exist/);
    expect(readdirSync(folder).filter((name) => name.includes('partial'))).toEqual([]);
  });
});
