import { openMigratedDatabase, type MigratedDatabase } from '../../../test/support/database/migrated-database.js';
import { openDatabaseConnections } from '../../database/database-connections.js';
import type { DatabaseClient } from '../../database/prisma-client.factory.js';
import type { SqliteConnections } from '../../database/sqlite-connections.js';
import { SqliteLinkStore } from '../../links/store/sqlite-link-store.js';
import type { OutboxMessages } from '../outbox/outbox-messages.js';
import { WebhooksRepository } from '../webhooks.repository.js';
import { SqliteWebhookMessageStore } from './sqlite-webhook-message-store.js';
import type { ClaimRequest } from './webhook-message-store.js';

/**
 * On SQLite, link creation appends its webhook messages to `webhook_new_messages` (one b-tree)
 * instead of `webhook_messages` (four), and whoever delivers moves them before each claim
 * (ADR 0007). These cases pin what that must not change: a message exists exactly when its link
 * was written, is listed and claimed by the id it was made with, moved once whoever moves it, and
 * follows its endpoint's fate (disabled: failed; deleted: gone).
 */
describe('SqliteWebhookMessageStore: the messages of new links', () => {
  let database: MigratedDatabase<SqliteConnections>;
  let sqlite: SqliteConnections;
  let prisma: DatabaseClient;
  let links: SqliteLinkStore;
  let store: SqliteWebhookMessageStore;
  let accountId: string;
  let endpointId: string;

  beforeEach(async () => {
    database = await openMigratedDatabase('sqlite');
    ({ connections: sqlite, prisma } = database);
    links = new SqliteLinkStore(sqlite, prisma);
    store = new SqliteWebhookMessageStore(sqlite);
    ({ id: accountId } = await prisma.account.create({ data: { email: 'owner@example.com' } }));
    ({ id: endpointId } = await prisma.webhookEndpoint.create({
      data: { accountId, url: 'https://hooks.example/in', events: ' link.created ', secret: 'whsec_test' },
    }));
  });

  afterEach(() => database.drop());

  const created = (codes: string[]) => (): OutboxMessages => ({
    accountId,
    event: 'link.created',
    bodies: new Map(codes.map((code) => [code, JSON.stringify({ type: 'link.created', data: { code } })])),
  });
  const newLink = (code: string, tags?: string[]) => ({ code, url: `https://example.com/${code}`, accountId, tags });
  const claimRequest = (now = new Date()): ClaimRequest => ({
    now,
    limit: 128,
    perEndpoint: 128,
    busyEndpoints: [],
    claimedUntil: new Date(now.getTime() + 60_000),
  });
  const codesOf = (messages: Array<{ payload: string }>) =>
    messages.map((message) => (JSON.parse(message.payload) as { data: { code: string } }).data.code);

  it('stores a new link’s message beside the link, and the next claim moves it and takes it by the id it was made with', async () => {
    expect(await links.insert(newLink('one'), new Date(), created(['one']))).not.toBeNull();

    expect(await prisma.webhookMessage.count()).toBe(0);
    const waiting = await prisma.webhookNewMessage.findMany();
    expect(waiting).toHaveLength(1);
    expect(waiting[0]).toMatchObject({ endpointId, event: 'link.created' });
    expect(waiting[0].messageId).toMatch(/^msg_[0-9a-f]{32}$/);

    const claimed = await store.claim(claimRequest());

    expect(claimed).toHaveLength(1);
    expect(claimed[0]).toMatchObject({ id: waiting[0].id, messageId: waiting[0].messageId, endpointId, attempts: 0 });
    expect(codesOf(claimed)).toEqual(['one']);
    expect(await prisma.webhookNewMessage.count()).toBe(0);
    expect(await prisma.webhookMessage.findUniqueOrThrow({ where: { id: waiting[0].id } })).toMatchObject({
      status: 'pending',
      createdAt: waiting[0].createdAt,
    });
  });

  it('stores no message for a link whose code was taken, nor for links of the same bulk call that were', async () => {
    await links.insert(newLink('taken'), new Date());

    expect(await links.insert(newLink('taken'), new Date(), created(['taken']))).toBeNull();
    const inserted = await links.insertMany(
      [newLink('b1'), newLink('taken'), newLink('b2', ['news'])],
      new Date(),
      created(['b1', 'taken', 'b2']),
    );

    expect(inserted.map((row) => row.code)).toEqual(['b1', 'b2']);
    const claimed = await store.claim(claimRequest());
    expect(codesOf(claimed).sort()).toEqual(['b1', 'b2']);
  });

  it('moves the messages of a bulk call and of single creations alike, oldest first', async () => {
    const start = Date.now();
    await links.insertMany(
      Array.from({ length: 30 }, (_, i) => newLink(`bulk${i}`)),
      new Date(start),
      created(Array.from({ length: 30 }, (_, i) => `bulk${i}`)),
    );
    await links.insert(newLink('later'), new Date(start + 1000), created(['later']));

    const claimed = await store.claim(claimRequest(new Date(start + 2000)));

    expect(claimed).toHaveLength(31);
    expect(codesOf(claimed).at(-1)).toBe('later');
    expect(await prisma.webhookNewMessage.count()).toBe(0);
  });

  it('lists a message before and after it is moved, by the same id, as pending and not yet attempted', async () => {
    await links.insert(newLink('listed'), new Date(), created(['listed']));
    const repository = new WebhooksRepository(prisma);

    const before = await repository.deliveriesOf(endpointId, 10);
    await store.claim(claimRequest());
    const after = await repository.deliveriesOf(endpointId, 10);

    expect(before).toHaveLength(1);
    expect(before[0]).toMatchObject({ status: 'pending', attempts: 0, responseStatus: null, lastAttemptAt: null });
    expect(after).toEqual([{ ...before[0], nextAttemptAt: after[0].nextAttemptAt }]);
    expect(after[0].nextAttemptAt?.getTime()).toBe(before[0].nextAttemptAt?.getTime());
  });

  it('lists new and moved messages together, newest first, up to the limit', async () => {
    const start = Date.now() - 10_000;
    await links.insert(newLink('first'), new Date(start), created(['first']));
    await store.claim(claimRequest(new Date(start + 500)));
    await links.insert(newLink('second'), new Date(start + 1000), created(['second']));
    await links.insert(newLink('third'), new Date(start + 2000), created(['third']));
    const repository = new WebhooksRepository(prisma);

    const listed = await repository.deliveriesOf(endpointId, 2);
    const all = await repository.deliveriesOf(endpointId, 10);

    const ids = await prisma.webhookNewMessage.findMany({ orderBy: { seq: 'desc' }, select: { id: true } });
    expect(listed.map((delivery) => delivery.id)).toEqual(ids.map((row) => row.id));
    expect(all).toHaveLength(3);
    expect(all[2]).toMatchObject({ status: 'pending', attempts: 0 });
  });

  it('fails, rather than queues, a message whose endpoint was disabled before it was moved', async () => {
    await links.insert(newLink('late'), new Date(), created(['late']));
    await prisma.webhookEndpoint.update({ where: { id: endpointId }, data: { disabledAt: new Date() } });

    expect(await store.claim(claimRequest())).toEqual([]);

    expect(await prisma.webhookNewMessage.count()).toBe(0);
    expect(await prisma.webhookMessage.findFirstOrThrow()).toMatchObject({ status: 'failed', nextAttemptAt: null });
  });

  it('drops the new messages of an endpoint deleted before they were moved', async () => {
    await links.insert(newLink('gone'), new Date(), created(['gone']));
    await prisma.webhookEndpoint.delete({ where: { id: endpointId } });

    expect(await prisma.webhookNewMessage.count()).toBe(0);
    expect(await store.claim(claimRequest())).toEqual([]);
    expect(await prisma.webhookMessage.count()).toBe(0);
  });

  it('moves each message once when two processes claim at the same time', async () => {
    // A second set of connections to the same file, as a `shortlink webhooks worker` has.
    const other = (await openDatabaseConnections(database.target)) as SqliteConnections;
    const otherStore = new SqliteWebhookMessageStore(other);
    try {
      const codes = Array.from({ length: 200 }, (_, i) => `c${i}`);
      for (let i = 0; i < codes.length; i += 20) {
        await links.insertMany(
          codes.slice(i, i + 20).map((code) => newLink(code)),
          new Date(),
          created(codes.slice(i, i + 20)),
        );
      }

      const [mine, theirs] = await Promise.all([store.claim(claimRequest()), otherStore.claim(claimRequest())]);
      const more = await store.claim(claimRequest());

      const all = codesOf([...mine, ...theirs, ...more]);
      expect(all.sort()).toEqual([...codes].sort());
      expect(await prisma.webhookMessage.count()).toBe(200);
      expect(await prisma.webhookNewMessage.count()).toBe(0);
    } finally {
      await other.close();
    }
  });

  it('keeps what links stored when nothing claims: a message waits, none is lost', async () => {
    await links.insert(newLink('waits'), new Date(), created(['waits']));
    await prisma.$disconnect();
    await sqlite.close();
    // A restart: new connections to the same file find the message and move it.
    const restarted = (await openDatabaseConnections(database.target)) as SqliteConnections;
    try {
      expect(codesOf(await new SqliteWebhookMessageStore(restarted).claim(claimRequest()))).toEqual(['waits']);
    } finally {
      await restarted.close();
    }
  });
});
