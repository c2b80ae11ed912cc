import { createTestDatabase, type TestDatabase } from '../../test/support/test-database.js';
import type { AppConfig } from '../config/app-config.js';
import { createDatabaseClient, tuneSqlite, type DatabaseClient } from '../database/prisma-client.factory.js';
import { SqliteBackgroundWriter } from '../database/sqlite-background-writer.js';
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
  let sut: LinksRepository;

  beforeEach(async () => {
    database = await createTestDatabase('sqlite');
    await prepareDatabase(database.url, { migrateOnStart: true, log: () => undefined });
    prisma = createDatabaseClient('sqlite', database.url);
    await tuneSqlite(prisma);
    writer = new SqliteBackgroundWriter({ databaseKind: 'sqlite', databaseUrl: database.url } as AppConfig);
    sut = new LinksRepository(prisma, writer);
  });

  afterEach(async () => {
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
