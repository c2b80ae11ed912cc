// Several instances on one PostgreSQL database: each message is attempted by one instance at a
// time (FOR UPDATE SKIP LOCKED and a lease), so a receiver gets each once. PostgreSQL only (one
// SQLite file is served by one instance), so this spec makes its own database.
import { PrismaService } from '../src/database/prisma.service.js';
import { ServiceCounters } from '../src/metrics/service-counters.js';
import { WebhookDispatcher } from '../src/webhooks/delivery/webhook-dispatcher.js';
import { eventually } from './support/eventually.js';
import { createAccountWithToken } from './support/factories.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { createTestDatabase, type TestDatabase } from './support/database/test-database.js';
import { verifyMessage, WebhookReceiver } from './support/processes/webhook-receiver.js';

const RIG = {
  RATE_LIMIT_TOKEN: '1000000',
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_RETRY_SCHEDULE: '1,1,1',
  // Long enough that no attempt times out on a loaded CI machine (two jest workers, two instances
  // and the receiver in one process): a timed-out attempt is retried, and a receiver that accepted
  // it gets it twice, as the contract allows. This spec is about claims, not timeouts.
  WEBHOOK_TIMEOUT_MS: '10000',
};

describe('two instances on one PostgreSQL database', () => {
  let database: TestDatabase;
  let a: TestApp;
  let b: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    database = await createTestDatabase('postgresql');
    a = await startTestApp(RIG, database);
    b = await startTestApp(RIG, database);
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
    await receiver.close();
    await database.drop();
  });

  it('deliver each message exactly once between them', async () => {
    const account = await createAccountWithToken(a);
    const added = await a.request('/api/webhooks', {
      method: 'POST',
      headers: account.apiKey,
      json: { url: receiver.url('/shared'), events: ['link.created'] },
    });
    const { secret } = (await added.json()) as { secret: string };
    // Slow enough answers that both instances find work while the other is busy.
    const answered = new Map<string, number>();
    receiver.behaviour = (_request, response, message) => {
      setTimeout(() => {
        const id = String(message.headers['webhook-id']);
        answered.set(id, (answered.get(id) ?? 0) + 1);
        response.end('ok');
      }, 20);
    };
    const attemptsBefore = [a, b].map((app) => app.app.get(WebhookDispatcher).attemptsMade);
    const retriedBefore = [a, b].map((app) => app.app.get(ServiceCounters).webhooksRetried);

    // Half the links through each instance, at the same time.
    const created = await Promise.all(
      [a, b].map((app, n) =>
        app.request('/api/links/bulk', {
          method: 'POST',
          headers: account.apiKey,
          json: { links: Array.from({ length: 200 }, (_, i) => ({ url: `https://example.com/${n}/${i}` })) },
        }),
      ),
    );
    expect(created.map((response) => response.status)).toEqual([200, 200]);

    await eventually(() => Promise.resolve(expect(answered.size).toBe(400)), 20_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    // Every attempt succeeded the first time (a retry would be a second, allowed delivery), so a
    // message received twice was claimed twice.
    const retried = [a, b].map((app, i) => app.app.get(ServiceCounters).webhooksRetried - retriedBefore[i]);
    expect(retried).toEqual([0, 0]);
    expect(receiver.received).toHaveLength(400);
    expect([...answered.values()].every((times) => times === 1)).toBe(true);
    expect(verifyMessage(secret, receiver.received[0])).toMatchObject({ type: 'link.created' });
    const [byA, byB] = [a, b].map((app, i) => app.app.get(WebhookDispatcher).attemptsMade - attemptsBefore[i]);
    expect(byA + byB).toBe(400);
    expect(byA).toBeGreaterThan(0);
    expect(byB).toBeGreaterThan(0);
    await eventually(async () => {
      const pending = await a.app.get(PrismaService).webhookMessage.count({ where: { status: { not: 'delivered' } } });
      expect(pending).toBe(0);
    });
  });

  it('take over the messages of an instance that died mid-attempt once its lease runs out', async () => {
    const account = await createAccountWithToken(a);
    const added = await a.request('/api/webhooks', {
      method: 'POST',
      headers: account.apiKey,
      json: { url: receiver.url('/orphan') },
    });
    const { id } = (await added.json()) as { id: string };
    receiver.behaviour = (_request, response) => response.end('ok');
    // As a dead instance leaves it: claimed, its lease already over, never recorded.
    const prisma = a.app.get(PrismaService);
    const message = await prisma.webhookMessage.create({
      data: {
        id: '6f0d9a3e-1c5b-4e8f-9a2d-3b4c5d6e7f80',
        endpointId: id,
        messageId: 'msg_0123456789abcdef0123456789abcdef',
        event: 'webhook.test',
        payload: JSON.stringify({ type: 'webhook.test', timestamp: new Date().toISOString(), data: {} }),
        nextAttemptAt: new Date(Date.now() - 60_000),
        claimedUntil: new Date(Date.now() - 1_000),
      },
    });

    await eventually(async () => {
      const row = await prisma.webhookMessage.findUniqueOrThrow({ where: { id: message.id } });
      expect(row).toMatchObject({ status: 'delivered', attempts: 1 });
    });
    expect(receiver.at('/orphan').map((m) => m.headers['webhook-id'])).toEqual([message.messageId]);
  });
});
