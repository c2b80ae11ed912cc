import { jest } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '../../test/support/test-database.js';
import { LoggedClicks } from '../clicks/logged-clicks.js';
import { openDatabaseConnections } from '../database/database-connections.js';
import { PostgresPools } from '../database/postgres-pools.js';
import { createDatabaseClient, tuneSqlite, type DatabaseClient } from '../database/prisma-client.factory.js';
import { SqliteConnections } from '../database/sqlite-connections.js';
import { readDatabaseUrl } from '../../prisma/engine/database-url.js';
import { prepareDatabase } from '../database/startup-migrations.js';
import { OutboxSignal } from '../webhooks/outbox/outbox-signal.js';
import { WebhookOutbox } from '../webhooks/outbox/webhook-outbox.js';
import { LinksRepository } from './links.repository.js';
import { PostgresLinkStore } from './store/postgres-link-store.js';
import { SqliteLinkStore } from './store/sqlite-link-store.js';

/** A stored row as the repository's records show it: without the click log's bookkeeping. */
async function storedLink(prisma: DatabaseClient, code: string) {
  const row = await prisma.link.findUnique({ where: { code } });
  if (!row) return row;
  const { clicksThroughBatch, ...record } = row;
  expect(clicksThroughBatch).toBe(0);
  return record;
}

/**
 * On SQLite, links are inserted by the background writer's connection when it runs and by
 * Prisma's when it does not: both must store exactly what Prisma reads back.
 */
describe('LinksRepository on SQLite', () => {
  let database: TestDatabase;
  let prisma: DatabaseClient;
  let sqlite: SqliteConnections;
  let sut: LinksRepository;

  beforeEach(async () => {
    database = await createTestDatabase('sqlite');
    const target = readDatabaseUrl(database.url);
    await prepareDatabase(target, { migrateOnStart: true, log: () => undefined });
    sqlite = openDatabaseConnections(target) as SqliteConnections;
    prisma = createDatabaseClient(sqlite);
    await tuneSqlite(prisma);
    sut = new LinksRepository(
      prisma,
      new SqliteLinkStore(sqlite, prisma),
      new LoggedClicks(),
      new WebhookOutbox(),
      new OutboxSignal(),
    );
  });

  afterEach(async () => {
    await prisma.$disconnect();
    await sqlite.close();
    await database.drop();
  });

  const insertAndReadBack = async (code: string) => {
    const created = await sut.insertIfCodeFree({ code, url: `https://example.com/${code}`, accountId: null });
    const stored = await storedLink(prisma, code);
    return { created, stored };
  };

  it.each([
    ['through the background writer', false],
    ['through Prisma when the writer has stopped', true],
  ])('inserts %s exactly what Prisma reads back', async (_path, stopWriter) => {
    if (stopWriter) await sqlite.writer.close();

    const { created, stored } = await insertAndReadBack('abc1234');

    expect(created).not.toBeNull();
    expect(stored).toEqual(created);
    expect(stored?.createdAt.getTime()).toBe(created?.createdAt.getTime());
  });

  it('answers null, changing nothing, for a code that is taken', async () => {
    const first = await sut.insertIfCodeFree({ code: 'taken01', url: 'https://example.com/first', accountId: null });

    const second = await sut.insertIfCodeFree({ code: 'taken01', url: 'https://example.com/second', accountId: null });

    expect(second).toBeNull();
    expect(await storedLink(prisma, 'taken01')).toEqual(first);
  });
});

/**
 * On PostgreSQL, links are inserted through the driver on Prisma's own pool: the row must be
 * exactly what Prisma reads back.
 */
describe('LinksRepository on PostgreSQL', () => {
  let database: TestDatabase;
  let postgres: PostgresPools;
  let prisma: DatabaseClient;
  let sut: LinksRepository;

  beforeAll(async () => {
    database = await createTestDatabase('postgresql');
    const target = readDatabaseUrl(database.url);
    await prepareDatabase(target, { migrateOnStart: true, log: () => undefined });
    postgres = openDatabaseConnections(target) as PostgresPools;
    prisma = createDatabaseClient(postgres);
    sut = new LinksRepository(
      prisma,
      new PostgresLinkStore(postgres.main),
      new LoggedClicks(),
      new WebhookOutbox(),
      new OutboxSignal(),
    );
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
    const stored = await storedLink(prisma, 'abc1234');

    expect(created).not.toBeNull();
    expect(stored).toEqual(created);
    expect(stored?.createdAt.getTime()).toBe(created?.createdAt.getTime());
  });

  // `created_at` has no time zone and holds UTC: a Date would go in the process's local time,
  // which Jest cannot change in-process (the specs run in UTC), so the value sent is checked.
  it("sends the creation time as UTC text, whatever the process's time zone", async () => {
    const query = jest.spyOn(postgres.main.pool, 'query');

    const created = await sut.insertIfCodeFree({ code: 'utc0001', url: 'https://example.com/utc', accountId: null });

    const configs = query.mock.calls.map(([config]) => config as unknown as { name?: string; values: unknown[] });
    const insert = configs.find((config) => config.name === 'insert-link');
    expect(insert?.values[3]).toBe(created?.createdAt.toISOString());
  });

  it('answers null, changing nothing, for a code that is taken', async () => {
    const first = await sut.insertIfCodeFree({ code: 'taken01', url: 'https://example.com/first', accountId: null });

    const second = await sut.insertIfCodeFree({ code: 'taken01', url: 'https://example.com/second', accountId: null });

    expect(second).toBeNull();
    expect(await storedLink(prisma, 'taken01')).toEqual(first);
  });

  it("stores the owner of an account's link", async () => {
    const account = await prisma.account.create({ data: { email: 'owner@example.com' } });

    const created = await sut.insertIfCodeFree({
      code: 'owned01',
      url: 'https://example.com/owned',
      accountId: account.id,
    });

    expect(await storedLink(prisma, 'owned01')).toEqual(created);
    expect(created?.accountId).toBe(account.id);
  });
});
