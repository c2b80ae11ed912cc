import { jest } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '../../test/support/test-database.js';
import type { AppConfig } from '../config/app-config.js';
import { PostgresDriver } from '../database/postgres-driver.js';
import { createDatabaseClient, tuneSqlite, type DatabaseClient } from '../database/prisma-client.factory.js';
import { SqliteBackgroundWriter } from '../database/sqlite-background-writer.js';
import { SqliteReader } from '../database/sqlite-reader.js';
import { readDatabaseUrl } from '../../prisma/engine/database-url.js';
import { prepareDatabase } from '../database/startup-migrations.js';
import { LinksRepository } from './links.repository.js';

/**
 * On SQLite, links are inserted by the background writer's connection when it runs and by
 * Prisma's when it does not: both must store exactly what Prisma reads back.
 */
describe('LinksRepository on SQLite', () => {
  let database: TestDatabase;
  let prisma: DatabaseClient;
  let writer: SqliteBackgroundWriter;
  let reader: SqliteReader;
  let sut: LinksRepository;

  beforeEach(async () => {
    database = await createTestDatabase('sqlite');
    const config = { databaseKind: 'sqlite', database: readDatabaseUrl(database.url) } as AppConfig;
    await prepareDatabase(config.database, { migrateOnStart: true, log: () => undefined });
    prisma = createDatabaseClient(config.database);
    await tuneSqlite(prisma);
    writer = new SqliteBackgroundWriter(config);
    reader = new SqliteReader(config);
    sut = new LinksRepository(prisma, writer, new PostgresDriver(config), reader);
  });

  afterEach(async () => {
    reader.onApplicationShutdown();
    await writer.onApplicationShutdown();
    await prisma.$disconnect();
    await database.drop();
  });

  const insertAndReadBack = async (code: string) => {
    const created = await sut.insertIfCodeFree({ code, url: `https://example.com/${code}`, accountId: null });
    const stored = await prisma.link.findUnique({ where: { code } });
    return { created, stored };
  };

  it.each([
    ['through the background writer', false],
    ['through Prisma when the writer has stopped', true],
  ])('inserts %s exactly what Prisma reads back', async (_path, stopWriter) => {
    if (stopWriter) await writer.onApplicationShutdown();

    const { created, stored } = await insertAndReadBack('abc1234');

    expect(created).not.toBeNull();
    expect(stored).toEqual(created);
    expect(stored?.createdAt.getTime()).toBe(created?.createdAt.getTime());
  });

  it('answers null, changing nothing, for a code that is taken', async () => {
    const first = await sut.insertIfCodeFree({ code: 'taken01', url: 'https://example.com/first', accountId: null });

    const second = await sut.insertIfCodeFree({ code: 'taken01', url: 'https://example.com/second', accountId: null });

    expect(second).toBeNull();
    expect(await prisma.link.findUnique({ where: { code: 'taken01' } })).toEqual(first);
  });
});

/**
 * On PostgreSQL, links are inserted through the driver on Prisma's own pool: the row must be
 * exactly what Prisma reads back.
 */
describe('LinksRepository on PostgreSQL', () => {
  let database: TestDatabase;
  let postgres: PostgresDriver;
  let prisma: DatabaseClient;
  let sut: LinksRepository;

  beforeAll(async () => {
    database = await createTestDatabase('postgresql');
    const config = { databaseKind: 'postgresql', database: readDatabaseUrl(database.url) } as AppConfig;
    await prepareDatabase(config.database, { migrateOnStart: true, log: () => undefined });
    postgres = new PostgresDriver(config);
    prisma = createDatabaseClient(config.database, postgres.prismaPool);
    sut = new LinksRepository(prisma, new SqliteBackgroundWriter(config), postgres, new SqliteReader(config));
  });

  afterEach(() => jest.restoreAllMocks());

  afterAll(async () => {
    await prisma.$disconnect();
    await postgres.close();
    await database.drop();
  });

  it('inserts exactly what Prisma reads back', async () => {
    const created = await sut.insertIfCodeFree({
      code: 'abc1234',
      url: 'https://example.com/abc1234',
      accountId: null,
    });
    const stored = await prisma.link.findUnique({ where: { code: 'abc1234' } });

    expect(created).not.toBeNull();
    expect(stored).toEqual(created);
    expect(stored?.createdAt.getTime()).toBe(created?.createdAt.getTime());
  });

  // `created_at` has no time zone and holds UTC: a Date would go in the process's local time,
  // which Jest cannot change in-process (the specs run in UTC), so the value sent is checked.
  it("sends the creation time as UTC text, whatever the process's time zone", async () => {
    const query = jest.spyOn(postgres.prismaPool!, 'query');

    const created = await sut.insertIfCodeFree({ code: 'utc0001', url: 'https://example.com/utc', accountId: null });

    const configs = query.mock.calls.map(([config]) => config as unknown as { name?: string; values: unknown[] });
    const insert = configs.find((config) => config.name === 'insert-link');
    expect(insert?.values[3]).toBe(created?.createdAt.toISOString());
  });

  it('answers null, changing nothing, for a code that is taken', async () => {
    const first = await sut.insertIfCodeFree({ code: 'taken01', url: 'https://example.com/first', accountId: null });

    const second = await sut.insertIfCodeFree({ code: 'taken01', url: 'https://example.com/second', accountId: null });

    expect(second).toBeNull();
    expect(await prisma.link.findUnique({ where: { code: 'taken01' } })).toEqual(first);
  });

  it("stores the owner of an account's link", async () => {
    const account = await prisma.account.create({ data: { email: 'owner@example.com' } });

    const created = await sut.insertIfCodeFree({
      code: 'owned01',
      url: 'https://example.com/owned',
      accountId: account.id,
    });

    expect(await prisma.link.findUnique({ where: { code: 'owned01' } })).toEqual(created);
    expect(created?.accountId).toBe(account.id);
  });
});
