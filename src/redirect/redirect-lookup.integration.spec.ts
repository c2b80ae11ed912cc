import { jest } from '@jest/globals';
import Database from 'better-sqlite3';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from '../../test/support/database/test-database.js';
import { freePort } from '../../test/support/processes/free-port.js';
import { toProblem } from '../common/errors/problem.js';
import { openDatabaseConnections, type DatabaseConnections } from '../database/database-connections.js';
import { DatabaseUnavailableError } from '../database/database-unavailable.js';
import type { PostgresPools } from '../database/postgres-pools.js';
import { readDatabaseUrl, sqliteFilePath } from '../../prisma/engine/database-url.js';
import { PostgresRedirectLookup, SqliteRedirectLookup, type RedirectLookup } from './redirect-lookup.js';

const LINKS_TABLE = `CREATE TABLE links (code TEXT PRIMARY KEY, url TEXT NOT NULL, expires_at TIMESTAMP(3),
  password_hash TEXT, ios_url TEXT, android_url TEXT, disabled_at TIMESTAMP(3))`;

/** A writer on the database next to the lookup, like the app's Prisma client. */
/** What the lookup answers for a link without an expiry. */
const target = (url: string) => ({ url, expiresAt: Infinity, rules: undefined });

/** A link's rule columns, as the migrations add them. */
interface Rules {
  passwordHash?: string;
  iosUrl?: string;
  androidUrl?: string;
  /** Disabled by the admins since then. */
  disabledAt?: Date;
}

interface Writer {
  insert(code: string, url: string, expiresAt?: Date, rules?: Rules): Promise<void>;
  close(): Promise<void>;
}

function sqliteWriter(url: string): Promise<Writer> {
  const db = new Database(sqliteFilePath(url));
  db.pragma('journal_mode = WAL');
  db.exec(LINKS_TABLE);
  const insert = db.prepare(
    'INSERT INTO links (code, url, expires_at, password_hash, ios_url, android_url, disabled_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  return Promise.resolve({
    // As Prisma's SQLite adapter writes a DateTime (toSqliteDateTime).
    insert: (code, target, expiresAt, rules = {}) =>
      Promise.resolve(
        void insert.run(
          code,
          target,
          expiresAt?.toISOString().replace('Z', '+00:00') ?? null,
          rules.passwordHash ?? null,
          rules.iosUrl ?? null,
          rules.androidUrl ?? null,
          rules.disabledAt?.toISOString().replace('Z', '+00:00') ?? null,
        ),
      ),
    close: () => Promise.resolve(void db.close()),
  });
}

async function postgresWriter(url: string): Promise<Writer> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(LINKS_TABLE);
  return {
    // As the app writes a timestamp without a zone: UTC, as an ISO string.
    insert: async (code, target, expiresAt, rules = {}) =>
      void (await client.query(
        `INSERT INTO links (code, url, expires_at, password_hash, ios_url, android_url, disabled_at)
          VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [
          code,
          target,
          expiresAt?.toISOString() ?? null,
          rules.passwordHash ?? null,
          rules.iosUrl ?? null,
          rules.androidUrl ?? null,
          rules.disabledAt?.toISOString() ?? null,
        ],
      )),
    close: () => client.end(),
  };
}

/** The connections of each lookup under test: the app's DatabaseModule owns and closes them. */
const connectionsOf = new Map<RedirectLookup, DatabaseConnections>();

async function lookupFor(_kind: 'sqlite' | 'postgresql', url: string): Promise<RedirectLookup> {
  const connections = await openDatabaseConnections(readDatabaseUrl(url));
  const lookup =
    connections.kind === 'sqlite'
      ? new SqliteRedirectLookup(connections.lookups)
      : new PostgresRedirectLookup(connections.hot);
  connectionsOf.set(lookup, connections);
  return lookup;
}

/** What the app's shutdown does for a lookup: the DatabaseModule closes the connections. */
async function closeLookup(lookup: RedirectLookup | undefined): Promise<void> {
  if (!lookup) return;
  await connectionsOf.get(lookup)?.close();
  connectionsOf.delete(lookup);
}

describe.each([
  ['sqlite', sqliteWriter],
  ['postgresql', postgresWriter],
] as const)('RedirectLookup on %s', (kind, openWriter) => {
  let database: TestDatabase;
  let writer: Writer;
  let sut: RedirectLookup;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    writer = await openWriter(database.url);
    await writer.insert('Ab3dE9x', 'https://example.com/a');
    sut = await lookupFor(kind, database.url);
  });

  afterAll(async () => {
    await closeLookup(sut);
    await writer?.close();
    await database?.drop();
  });

  it('finds the target of a code, and null for an unknown one', async () => {
    await expect(sut.findTarget('Ab3dE9x')).resolves.toEqual(target('https://example.com/a'));
    await expect(sut.findTarget('Zz9Zz9Z')).resolves.toBeNull();
  });

  it("reads a link's rules: a password's hash and device targets, each null when unset", async () => {
    await writer.insert('Rules01', 'https://example.com/r1', undefined, { passwordHash: 'scrypt$x' });
    await writer.insert('Rules02', 'https://example.com/r2', undefined, { iosUrl: 'https://apps.apple.com/x' });

    await expect(sut.findTarget('Rules01')).resolves.toEqual({
      url: 'https://example.com/r1',
      expiresAt: Infinity,
      rules: { passwordHash: 'scrypt$x', iosUrl: null, androidUrl: null, disabled: false },
    });
    await expect(sut.findTarget('Rules02')).resolves.toMatchObject({
      rules: { passwordHash: null, iosUrl: 'https://apps.apple.com/x', androidUrl: null, disabled: false },
    });
  });

  it('reads a disabled link as one more rule, whatever its other columns', async () => {
    await writer.insert('Disabl1', 'https://example.com/d1', undefined, { disabledAt: new Date() });
    await writer.insert('Disabl2', 'https://example.com/d2', undefined, {
      passwordHash: 'scrypt$y',
      disabledAt: new Date(),
    });

    await expect(sut.findTarget('Disabl1')).resolves.toEqual({
      url: 'https://example.com/d1',
      expiresAt: Infinity,
      rules: { passwordHash: null, iosUrl: null, androidUrl: null, disabled: true },
    });
    await expect(sut.findTarget('Disabl2')).resolves.toMatchObject({
      rules: { passwordHash: 'scrypt$y', disabled: true },
    });
  });

  it('sees links written by the other connection after it started reading', async () => {
    await expect(sut.findTarget('NewCode')).resolves.toBeNull();
    await writer.insert('NewCode', 'https://example.com/new');
    await expect(sut.findTarget('NewCode')).resolves.toEqual(target('https://example.com/new'));
  });

  it("reads a link's expiry to the millisecond, as UTC", async () => {
    const expiresAt = new Date('2031-04-05T06:07:08.009Z');
    await writer.insert('Expires', 'https://example.com/expires', expiresAt);

    await expect(sut.findTarget('Expires')).resolves.toEqual({
      url: 'https://example.com/expires',
      expiresAt: expiresAt.getTime(),
    });
  });

  it('matches codes exactly (case-sensitive, no patterns)', async () => {
    await expect(sut.findTarget('ab3de9x')).resolves.toBeNull();
    await expect(sut.findTarget('Ab3dE9%')).resolves.toBeNull();
  });

  it('answers concurrent lookups each with its own code, repeated and unknown codes included', async () => {
    for (let i = 0; i < 20; i++)
      await writer.insert(`Many${String(i).padStart(3, '0')}`, `https://example.com/many/${i}`);
    // 600 lookups: more than one PostgreSQL batch, every known code three times, and unknowns.
    const codes = Array.from({ length: 600 }, (_, i) =>
      i % 30 < 20 ? `Many${String(i % 30).padStart(3, '0')}` : `None${i}`,
    );

    const targets = await Promise.all(codes.map((code) => sut.findTarget(code)));

    expect(targets).toEqual(
      codes.map((code) =>
        code.startsWith('Many') ? target(`https://example.com/many/${Number(code.slice(4))}`) : null,
      ),
    );
  });
});

describe('RedirectLookup on SQLite: each lookup reads the latest commit', () => {
  let database: TestDatabase;
  let db: Database.Database;
  let sut: RedirectLookup;
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    await (await sqliteWriter(database.url)).close();
    db = new Database(sqliteFilePath(database.url));
    db.prepare('INSERT INTO links (code, url) VALUES (?, ?)').run('Turn001', 'https://example.com/before');
    sut = await lookupFor('sqlite', database.url);
  });

  afterAll(async () => {
    await closeLookup(sut);
    db?.close();
    await database?.drop();
  });

  it('sees a change committed by another connection at the very next lookup, in the same turn', async () => {
    expect(await sut.findTarget('Turn001')).toEqual(target('https://example.com/before'));
    db.prepare('UPDATE links SET url = ? WHERE code = ?').run('https://example.com/after', 'Turn001');
    expect(await sut.findTarget('Turn001')).toEqual(target('https://example.com/after'));
  });

  it('holds no read transaction between lookups, so the WAL can be checkpointed in full', async () => {
    await nextTurn();
    expect(await sut.findTarget('Turn001')).not.toBeNull();
    db.prepare('INSERT INTO links (code, url) VALUES (?, ?)').run('Turn003', 'https://example.com/3');
    await nextTurn();

    // [busy, WAL frames, frames checkpointed]: with a reader still on an older snapshot the
    // last frames could not be copied back into the file.
    const [result] = db.pragma('wal_checkpoint(FULL)') as Array<{ busy: number; log: number; checkpointed: number }>;
    expect(result.busy).toBe(0);
    expect(result.checkpointed).toBe(result.log);
  });
});

describe('RedirectLookup on PostgreSQL under load', () => {
  let database: TestDatabase;
  let writer: Writer;
  let sut: RedirectLookup;

  beforeAll(async () => {
    database = await createTestDatabase('postgresql');
    writer = await postgresWriter(database.url);
    await writer.insert('Ab3dE9x', 'https://example.com/a');
    sut = await lookupFor('postgresql', database.url);
  });

  afterAll(async () => {
    await closeLookup(sut);
    await writer?.close();
    await database?.drop();
  });

  it('sends the lookups of one event-loop turn to the database as one query', async () => {
    const pool = (connectionsOf.get(sut) as PostgresPools).hot.pool;
    await sut.findTarget('Ab3dE9x'); // connects and prepares the statement
    const query = jest.spyOn(pool, 'query');

    const targets = await Promise.all(
      Array.from({ length: 100 }, (_, i) => sut.findTarget(i % 2 ? 'Ab3dE9x' : 'Unknown')),
    );

    expect(query).toHaveBeenCalledTimes(1);
    expect(targets.filter((found) => found?.url === 'https://example.com/a')).toHaveLength(50);
    expect(targets.filter((found) => found === null)).toHaveLength(50);
    query.mockRestore();
  });
});

describe('RedirectLookup with PostgreSQL unavailable', () => {
  it('fails with an error answered as 503 when nothing listens', async () => {
    const sut = await lookupFor('postgresql', `postgresql://postgres@127.0.0.1:${await freePort()}/shortlink`);
    try {
      const failure: unknown = await sut.findTarget('Ab3dE9x').then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(toProblem(failure)).toMatchObject({ status: 503, error: 'service_unavailable' });
    } finally {
      await closeLookup(sut);
    }
  });

  it('fails with an error answered as 503 when the database does not exist', async () => {
    const database = await createTestDatabase('postgresql');
    await database.drop();
    const sut = await lookupFor('postgresql', database.url);
    try {
      const failure: unknown = await sut.findTarget('Ab3dE9x').then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(DatabaseUnavailableError);
      expect((failure as DatabaseUnavailableError).cause).toMatchObject({ code: '3D000' });
      expect(toProblem(failure)).toMatchObject({ status: 503, error: 'service_unavailable' });
    } finally {
      await closeLookup(sut);
    }
  });
});
