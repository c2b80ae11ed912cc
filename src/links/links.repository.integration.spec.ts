import { jest } from '@jest/globals';
import { openMigratedDatabase, type MigratedDatabase } from '../../test/support/database/migrated-database.js';
import { LoggedClicks } from '../clicks/logged-clicks.js';
import type { PostgresPools } from '../database/postgres-pools.js';
import type { DatabaseClient } from '../database/prisma-client.factory.js';
import type { SqliteConnections } from '../database/sqlite-connections.js';
import { OutboxSignal } from '../webhooks/outbox/outbox-signal.js';
import { WebhookOutbox } from '../webhooks/outbox/webhook-outbox.js';
import { LinksRepository } from './links.repository.js';
import { PostgresLinkStore } from './store/postgres-link-store.js';
import { SqliteLinkStore } from './store/sqlite-link-store.js';

/** A stored row as the repository's records show it: without the click log's bookkeeping, with its tags. */
async function storedLink(prisma: DatabaseClient, code: string) {
  const row = await prisma.link.findUnique({ where: { code }, include: { tags: { orderBy: { tag: 'asc' } } } });
  if (!row) return row;
  const { clicksThroughBatch, tags, passwordHash, disabledReason, disabledCause, ...record } = row;
  expect(clicksThroughBatch).toBe(0);
  // A new link is live: nothing disabled it, for no reason.
  expect({ disabledReason, disabledCause }).toEqual({ disabledReason: null, disabledCause: null });
  // A tag row copies its link's owner and creation time.
  for (const tag of tags) expect(tag).toMatchObject({ accountId: row.accountId, createdAt: row.createdAt });
  // The hash stays in the database: a record says only whether there is one.
  return { ...record, passwordProtected: passwordHash !== null, tags: tags.map((tag) => tag.tag) };
}

/**
 * On SQLite, links are inserted by the background writer's connection when it runs and by
 * Prisma's when it does not: both must store exactly what Prisma reads back.
 */
describe('LinksRepository on SQLite', () => {
  let database: MigratedDatabase<SqliteConnections>;
  let prisma: DatabaseClient;
  let sqlite: SqliteConnections;
  let sut: LinksRepository;

  beforeEach(async () => {
    database = await openMigratedDatabase('sqlite');
    ({ connections: sqlite, prisma } = database);
    sut = new LinksRepository(
      prisma,
      new SqliteLinkStore(sqlite, prisma),
      new LoggedClicks(),
      new WebhookOutbox(),
      new OutboxSignal(),
    );
  });

  afterEach(() => database.drop());

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

  describe.each([
    ['through the background writer', false],
    ['through Prisma when the writer has stopped', true],
  ])('with tags, %s', (_path, stopWriter) => {
    let accountId: string;
    beforeEach(async () => {
      accountId = (await prisma.account.create({ data: { email: 'tags@example.com' } })).id;
      if (stopWriter) await sqlite.writer.close();
    });
    const link = (code: string, tags: string[]) => ({ code, url: `https://example.com/${code}`, accountId, tags });

    it('inserts a link with its tags, and none of them when its code is taken', async () => {
      const created = await sut.insertIfCodeFree(link('tagged1', ['a', 'b']));
      const taken = await sut.insertIfCodeFree(link('tagged1', ['c']));

      expect(created?.tags).toEqual(['a', 'b']);
      expect(taken).toBeNull();
      expect(await storedLink(prisma, 'tagged1')).toEqual(created);
      expect(await prisma.accountTag.findMany({ orderBy: { tag: 'asc' } })).toEqual([
        { accountId, tag: 'a', linkCount: 1 },
        { accountId, tag: 'b', linkCount: 1 },
      ]);
    });

    it('inserts many, each with its own tags, skipping the taken codes and their tags', async () => {
      await sut.insertIfCodeFree(link('taken02', ['old']));

      const created = await sut.insertManyIfCodesFree([
        link('many001', ['x', 'y']),
        link('taken02', ['stolen']),
        link('many002', []),
        link('many003', ['x']),
      ]);

      expect(created.map((record) => record.code)).toEqual(['many001', 'many002', 'many003']);
      for (const record of created) expect(await storedLink(prisma, record.code)).toEqual(record);
      expect((await storedLink(prisma, 'taken02'))?.tags).toEqual(['old']);
      expect(await prisma.accountTag.findMany({ orderBy: { tag: 'asc' } })).toEqual([
        { accountId, tag: 'old', linkCount: 1 },
        { accountId, tag: 'x', linkCount: 2 },
        { accountId, tag: 'y', linkCount: 1 },
      ]);
    });
  });
});

/**
 * On PostgreSQL, links are inserted through the driver on Prisma's own pool: the row must be
 * exactly what Prisma reads back.
 */
describe('LinksRepository on PostgreSQL', () => {
  let database: MigratedDatabase<PostgresPools>;
  let postgres: PostgresPools;
  let prisma: DatabaseClient;
  let sut: LinksRepository;

  beforeAll(async () => {
    database = await openMigratedDatabase('postgresql');
    ({ connections: postgres, prisma } = database);
    sut = new LinksRepository(
      prisma,
      new PostgresLinkStore(postgres.main),
      new LoggedClicks(),
      new WebhookOutbox(),
      new OutboxSignal(),
    );
  });

  afterEach(() => jest.restoreAllMocks());

  afterAll(() => database.drop());

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

  it('inserts a link with its tags, and many, skipping the taken codes and their tags', async () => {
    const account = await prisma.account.create({ data: { email: 'tags@example.com' } });
    const link = (code: string, tags: string[]) => ({
      code,
      url: `https://example.com/${code}`,
      accountId: account.id,
      tags,
    });

    const one = await sut.insertIfCodeFree(link('tagged1', ['a', 'b']));
    const taken = await sut.insertIfCodeFree(link('tagged1', ['c']));
    const many = await sut.insertManyIfCodesFree([
      link('many001', ['a']),
      link('tagged1', ['stolen']),
      link('many002', []),
    ]);

    expect(taken).toBeNull();
    expect(many.map((record) => record.code)).toEqual(['many001', 'many002']);
    for (const record of [one, ...many]) expect(await storedLink(prisma, record!.code)).toEqual(record);
    expect(await prisma.accountTag.findMany({ where: { accountId: account.id }, orderBy: { tag: 'asc' } })).toEqual([
      { accountId: account.id, tag: 'a', linkCount: 2 },
      { accountId: account.id, tag: 'b', linkCount: 1 },
    ]);
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
