import { AccountsService } from '../src/accounts/accounts.service.js';
import { PrismaService } from '../src/database/prisma.service.js';
import { ServiceCounters } from '../src/metrics/service-counters.js';
import { KEEP_MESSAGES_MS } from '../src/webhooks/delivery/webhook-dispatcher.js';
import { WebhookMessageStore } from '../src/webhooks/delivery/webhook-message-store.js';
import { eventually } from './support/eventually.js';
import { createAccountWithToken, createAdminWithToken, type TestAccount } from './support/factories.js';
import { startTestApp, type TestApp } from './support/test-app.js';
import { verifyMessage, WebhookReceiver, type ReceivedMessage } from './support/processes/webhook-receiver.js';
import { createLink } from './support/api-client.js';
import { expectProblem } from './support/problems.js';

const ISO_DATE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const NO_RATE_LIMITS = { RATE_LIMIT_ANONYMOUS: '1000000', RATE_LIMIT_TOKEN: '1000000' };
/** Receivers in these specs are on 127.0.0.1: allowed here, refused by the second app below. */
const TEST_RIG = {
  ...NO_RATE_LIMITS,
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_RETRY_SCHEDULE: '1,1,1',
  WEBHOOK_TIMEOUT_MS: '1000',
  WEBHOOK_CLICK_INTERVAL_SECONDS: '1',
  CLICK_FLUSH_INTERVAL_MS: '100',
};
const BROWSER =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36';

interface Webhook {
  id: string;
  url: string;
  events: string[];
  secret?: string;
  created_at: string;
  disabled_at: string | null;
}

interface Delivery {
  id: string;
  event: string;
  message_id: string;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  response_status: number | null;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
}

let testApp: TestApp;
let receiver: WebhookReceiver;

beforeAll(async () => {
  [testApp, receiver] = await Promise.all([startTestApp(TEST_RIG), WebhookReceiver.start()]);
});
afterAll(async () => {
  await testApp.close();
  await receiver.close();
});

async function addWebhook(account: TestAccount, json: Record<string, unknown>, app = testApp): Promise<Webhook> {
  const response = await app.request('/api/webhooks', { method: 'POST', headers: account.apiKey, json });
  expect(response.status).toBe(201);
  return (await response.json()) as Webhook;
}

async function deliveries(account: TestAccount, id: string): Promise<Delivery[]> {
  const response = await testApp.request(`/api/webhooks/${id}/deliveries`, { headers: account.apiKey });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: Delivery[] }).data;
}

/** Waits until `path` has received `count` messages, and returns them. */
async function receivedAt(path: string, count: number, timeoutMs = 8000): Promise<ReceivedMessage[]> {
  await eventually(() => Promise.resolve(expect(receiver.at(path).length).toBeGreaterThanOrEqual(count)), timeoutMs);
  return receiver.at(path);
}

describe('the webhooks API', () => {
  let owner: TestAccount;
  let stranger: TestAccount;

  beforeAll(async () => {
    owner = await createAccountWithToken(testApp);
    stranger = await createAccountWithToken(testApp);
  });

  it('adds a webhook: 201, Location, every event by default and a whsec_ secret shown once', async () => {
    const response = await testApp.request('/api/webhooks', {
      method: 'POST',
      headers: owner.bearer,
      json: { url: receiver.url('/crud') },
    });

    expect(response.status).toBe(201);
    const created = (await response.json()) as Webhook;
    expect(response.headers.get('location')).toBe(`/api/webhooks/${created.id}`);
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      url: receiver.url('/crud'),
      events: ['link.created', 'link.updated', 'link.deleted', 'link.clicked'],
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      created_at: expect.stringMatching(ISO_DATE),
      disabled_at: null,
      last_delivered_at: null,
      last_failed_at: null,
    });
    expect(Buffer.from(created.secret!.slice(6), 'base64')).toHaveLength(32);

    const list = await testApp.request('/api/webhooks', { headers: owner.apiKey });
    expect(list.status).toBe(200);
    const { data } = (await list.json()) as { data: Webhook[] };
    expect(data).toContainEqual({ ...created, secret: undefined });
    expect(JSON.stringify(data)).not.toContain('whsec_');

    const one = await testApp.request(`/api/webhooks/${created.id}`, { headers: owner.apiKey });
    expect(one.status).toBe(200);
    const read = (await one.json()) as Webhook;
    expect(read.id).toBe(created.id);
    expect(read).not.toHaveProperty('secret');

    const deleted = await testApp.request(`/api/webhooks/${created.id}`, { method: 'DELETE', headers: owner.apiKey });
    expect(deleted.status).toBe(204);
    expect(await deleted.text()).toBe('');
    await expectProblem(
      await testApp.request(`/api/webhooks/${created.id}`, { headers: owner.apiKey }),
      404,
      'not_found',
    );
    await expectProblem(
      await testApp.request(`/api/webhooks/${created.id}`, { method: 'DELETE', headers: owner.apiKey }),
      404,
      'not_found',
    );
  });

  it('keeps the events asked for, in the catalogue order, and refuses unknown ones', async () => {
    const webhook = await addWebhook(owner, { url: receiver.url('/some'), events: ['link.deleted', 'link.created'] });
    expect(webhook.events).toEqual(['link.created', 'link.deleted']);

    for (const events of [['link.exploded'], [], 'link.created', ['link.created', 'link.created']]) {
      const response = await testApp.request('/api/webhooks', {
        method: 'POST',
        headers: owner.apiKey,
        json: { url: receiver.url('/some'), events },
      });
      await expectProblem(response, 400, 'validation_failed');
    }
    await expectProblem(
      await testApp.request('/api/webhooks', {
        method: 'POST',
        headers: owner.apiKey,
        json: { url: receiver.url(), x: 1 },
      }),
      400,
      'validation_failed',
    );
    await testApp.request(`/api/webhooks/${webhook.id}`, { method: 'DELETE', headers: owner.apiKey });
  });

  it.each([
    ['credentials', 'http://user:secret@127.0.0.1/hook'],
    ['a user name', 'http://user@127.0.0.1/hook'],
    ['ftp:', 'ftp://127.0.0.1/hook'],
    ['javascript:', 'javascript:alert(1)'],
    ['no scheme', '127.0.0.1/hook'],
    ['a space', 'http://127.0.0.1/a hook'],
  ])('refuses a URL with %s: 400 invalid_url', async (_case, url) => {
    const response = await testApp.request('/api/webhooks', { method: 'POST', headers: owner.apiKey, json: { url } });
    await expectProblem(response, 400, 'invalid_url');
  });

  it("answers 404 for another account's webhook, whatever the operation, and changes nothing", async () => {
    const webhook = await addWebhook(owner, { url: receiver.url('/private') });
    const base = `/api/webhooks/${webhook.id}`;

    for (const [method, path] of [
      ['GET', base],
      ['DELETE', base],
      ['POST', `${base}/test`],
      ['GET', `${base}/deliveries`],
      ['GET', '/api/webhooks/not-a-uuid'],
      ['GET', '/api/webhooks/00000000-0000-4000-8000-000000000000'],
    ] as const) {
      await expectProblem(await testApp.request(path, { method, headers: stranger.apiKey }), 404, 'not_found');
    }
    const { data } = (await (await testApp.request('/api/webhooks', { headers: stranger.apiKey })).json()) as {
      data: Webhook[];
    };
    expect(data).toEqual([]);
    expect((await testApp.request(base, { headers: owner.apiKey })).status).toBe(200);
    expect(receiver.at('/private')).toHaveLength(0);
  });

  it('answers 401 without a token and 403 without the webhooks scopes', async () => {
    const webhook = await addWebhook(owner, { url: receiver.url('/scopes') });
    const linksOnly = await createAccountWithToken(testApp, ['links:read', 'links:write']);
    const readOnly = await createAccountWithToken(testApp, ['webhooks:read']);

    const response = await testApp.request('/api/webhooks');
    await expectProblem(response, 401, 'unauthorized');
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    await expectProblem(await testApp.request('/api/webhooks', { headers: linksOnly.apiKey }), 403, 'forbidden');
    await expectProblem(
      await testApp.request('/api/webhooks', {
        method: 'POST',
        headers: linksOnly.apiKey,
        json: { url: receiver.url() },
      }),
      403,
      'forbidden',
    );
    expect((await testApp.request('/api/webhooks', { headers: readOnly.apiKey })).status).toBe(200);
    await expectProblem(
      await testApp.request('/api/webhooks', {
        method: 'POST',
        headers: readOnly.apiKey,
        json: { url: receiver.url() },
      }),
      403,
      'forbidden',
    );
    await expectProblem(
      await testApp.request(`/api/webhooks/${webhook.id}/test`, { method: 'POST', headers: readOnly.apiKey }),
      403,
      'forbidden',
    );
    await expectProblem(
      await testApp.request(`/api/webhooks/${webhook.id}`, { method: 'DELETE', headers: readOnly.apiKey }),
      403,
      'forbidden',
    );
  });

  it('refuses the 11th webhook of an account with 409 too_many_webhooks', async () => {
    const account = await createAccountWithToken(testApp);
    await Promise.all(Array.from({ length: 10 }, (_, i) => addWebhook(account, { url: receiver.url(`/many/${i}`) })));

    const response = await testApp.request('/api/webhooks', {
      method: 'POST',
      headers: account.apiKey,
      json: { url: receiver.url('/many/11') },
    });

    await expectProblem(response, 409, 'too_many_webhooks');
    const { data } = (await (await testApp.request('/api/webhooks', { headers: account.apiKey })).json()) as {
      data: Webhook[];
    };
    expect(data).toHaveLength(10);
  });

  it('refuses an 11th added concurrently with the 10th: never more than 10', async () => {
    const account = await createAccountWithToken(testApp);
    const statuses = await Promise.all(
      Array.from({ length: 12 }, async (_, i) => {
        const response = await testApp.request('/api/webhooks', {
          method: 'POST',
          headers: account.apiKey,
          json: { url: receiver.url(`/race/${i}`) },
        });
        return response.status;
      }),
    );
    expect(statuses.filter((status) => status === 201)).toHaveLength(10);
    expect(statuses.filter((status) => status === 409)).toHaveLength(2);
  });

  // SHORT_BASE_URL is https://sl.test here (test-app.ts); private addresses are allowed, so only
  // the loop is refused. Link targets refuse the same hosts (test/loop-targets.e2e-spec.ts).
  it.each([
    'https://sl.test/hook',
    'https://SL.Test./hook',
    'https://sl.test:443/hook',
    'http://sl.test/hook',
    'http://sl.test:80/api/links',
  ])('refuses %s, the service itself: 400 invalid_url on the url field, nothing stored', async (url) => {
    const account = await createAccountWithToken(testApp);

    const response = await testApp.request('/api/webhooks', { method: 'POST', headers: account.apiKey, json: { url } });

    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: 'invalid_url',
      errors: [{ field: 'url', message: expect.stringContaining('this short-link service') }],
    });
    expect(
      await testApp.app.get(PrismaService).webhookEndpoint.count({ where: { accountId: account.accountId } }),
    ).toBe(0);
  });

  it("accepts the service's host on another port: another service", async () => {
    const account = await createAccountWithToken(testApp);

    const webhook = await addWebhook(account, { url: 'https://sl.test:8443/hook', events: ['link.deleted'] });

    expect(webhook.url).toBe('https://sl.test:8443/hook');
  });
});

describe('destinations, with private addresses refused (the default)', () => {
  let strictApp: TestApp;
  let account: TestAccount;

  beforeAll(async () => {
    strictApp = await startTestApp(NO_RATE_LIMITS);
    account = await createAccountWithToken(strictApp);
  });
  afterAll(() => strictApp.close());

  it.each([
    'http://127.0.0.1/hook',
    'http://127.1.2.3:8080/hook',
    'http://[::1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://10.0.0.1/hook',
    'http://192.168.1.20/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://[fd00::1]/hook',
    'http://0.0.0.0/hook',
    'http://localhost/hook',
    'https://localhost:8443/hook',
    'http://no-such-host.invalid/hook',
  ])('refuses %s: 400 invalid_url, nothing stored', async (url) => {
    const response = await strictApp.request('/api/webhooks', {
      method: 'POST',
      headers: account.apiKey,
      json: { url },
    });

    await expectProblem(response, 400, 'invalid_url');
    expect(
      await strictApp.app.get(PrismaService).webhookEndpoint.count({ where: { accountId: account.accountId } }),
    ).toBe(0);
  });

  it('checks the address again when connecting: a receiver that resolves to 127.0.0.1 gets nothing', async () => {
    // As if the name had resolved to a public address when the webhook was added (DNS rebinding).
    const endpoint = await strictApp.app.get(PrismaService).webhookEndpoint.create({
      data: {
        accountId: account.accountId,
        url: `http://localhost:${receiver.port}/rebound`,
        events: ' link.created ',
        secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw3XnJp1Y5pL0=',
      },
    });

    const response = await strictApp.request(`/api/webhooks/${endpoint.id}/test`, {
      method: 'POST',
      headers: account.apiKey,
    });

    expect(response.status).toBe(202);
    await eventually(async () => {
      const message = await strictApp.app.get(PrismaService).webhookMessage.findFirstOrThrow({
        where: { endpointId: endpoint.id },
      });
      expect(message.attempts).toBeGreaterThanOrEqual(1);
      expect(message.responseStatus).toBeNull();
    });
    expect(receiver.at('/rebound')).toHaveLength(0);
  });
});

describe('messages about links', () => {
  let owner: TestAccount;
  let secret: string;
  let webhookId: string;

  beforeAll(async () => {
    owner = await createAccountWithToken(testApp);
    const webhook = await addWebhook(owner, { url: receiver.url('/links') });
    secret = webhook.secret!;
    webhookId = webhook.id;
  });

  function linksMessages(type: string): ReceivedMessage[] {
    return receiver.at('/links').filter((message) => message.json.type === type);
  }

  it('sends link.created with the link resource, signed so that standardwebhooks verifies it', async () => {
    const before = Math.floor(Date.now() / 1000);
    const response = await testApp.request('/api/links', {
      method: 'POST',
      headers: owner.apiKey,
      json: { url: 'https://example.com/created', custom_code: 'wh-created' },
    });
    expect(response.status).toBe(201);
    const link = (await response.json()) as Record<string, unknown>;

    await eventually(() => Promise.resolve(expect(linksMessages('link.created')).toHaveLength(1)));
    const [message] = linksMessages('link.created');
    expect(verifyMessage(secret, message)).toEqual(message.json);
    expect(message.json).toEqual({ type: 'link.created', timestamp: expect.stringMatching(ISO_DATE), data: link });
    expect(message.headers['content-type']).toBe('application/json');
    expect(message.headers['webhook-id']).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(Number(message.headers['webhook-timestamp'])).toBeGreaterThanOrEqual(before);
    expect(message.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(() => verifyMessage(secret, { ...message, body: message.body.replace('created', 'Created') })).toThrow();

    await eventually(async () => {
      const [delivery] = await deliveries(owner, webhookId);
      expect(delivery).toEqual({
        id: expect.any(String),
        event: 'link.created',
        message_id: message.headers['webhook-id'],
        status: 'delivered',
        attempts: 1,
        response_status: 200,
        last_attempt_at: expect.stringMatching(ISO_DATE),
        next_attempt_at: null,
      });
    });
  });

  it('sends link.updated with the changed link and link.deleted with its code', async () => {
    await testApp.request('/api/links', {
      method: 'POST',
      headers: owner.apiKey,
      json: { url: 'https://example.com/v1', custom_code: 'wh-changed' },
    });
    const updated = await testApp.request('/api/links/wh-changed', {
      method: 'PUT',
      headers: owner.apiKey,
      json: { url: 'https://example.com/v2' },
    });
    expect(updated.status).toBe(200);
    const link = (await updated.json()) as Record<string, unknown>;
    expect((await testApp.request('/api/links/wh-changed', { method: 'DELETE', headers: owner.apiKey })).status).toBe(
      204,
    );

    await eventually(() => Promise.resolve(expect(linksMessages('link.deleted')).toHaveLength(1)));
    const [update] = linksMessages('link.updated');
    expect(verifyMessage(secret, update)).toMatchObject({ type: 'link.updated', data: link });
    const [deletion] = linksMessages('link.deleted');
    expect(verifyMessage(secret, deletion)).toEqual({
      type: 'link.deleted',
      timestamp: expect.stringMatching(ISO_DATE),
      data: { code: 'wh-changed' },
    });
    // Nothing for a change that did not happen.
    await expectProblem(
      await testApp.request('/api/links/wh-changed', { method: 'DELETE', headers: owner.apiKey }),
      404,
      'not_found',
    );
  });

  it('sends one link.created per link a bulk call created, none for its refused items', async () => {
    const response = await testApp.request('/api/links/bulk', {
      method: 'POST',
      headers: owner.apiKey,
      json: {
        links: [
          { url: 'https://example.com/bulk-1', custom_code: 'wh-bulk-1' },
          { url: 'not a url' },
          { url: 'https://example.com/bulk-2', custom_code: 'wh-bulk-1' },
          { url: 'https://example.com/bulk-3' },
        ],
      },
    });
    const { data } = (await response.json()) as { data: Array<{ link?: { code: string } }> };
    const created = data.flatMap((item) => (item.link ? [item.link.code] : []));
    expect(created).toHaveLength(2);

    await eventually(() =>
      Promise.resolve(
        expect(linksMessages('link.created').map((m) => m.json.data.code)).toEqual(expect.arrayContaining(created)),
      ),
    );
    const codes = linksMessages('link.created').map((message) => message.json.data.code);
    expect(codes.filter((code) => created.includes(code as string))).toHaveLength(2);
    expect(codes).not.toContain(undefined);
  });

  it("sends link.created for the CLI's import, as for the API", async () => {
    const { shortlinkInProcess } = await import('./support/processes/cli-in-process.js');
    const csv = 'code,url\nwh-import-1,https://example.com/imported-1\nwh-import-2,https://example.com/imported-2\n';

    const result = await shortlinkInProcess(
      ['links', 'import', owner.email, '-'],
      { DATABASE_URL: testApp.database.url },
      csv,
    );

    expect(result.stdout).toContain('created 2');
    await eventually(() =>
      Promise.resolve(
        expect(linksMessages('link.created').map((m) => m.json.data.code)).toEqual(
          expect.arrayContaining(['wh-import-1', 'wh-import-2']),
        ),
      ),
    );
  });

  it('sends only the events an endpoint asked for, and nothing about other accounts', async () => {
    const picky = await addWebhook(owner, { url: receiver.url('/picky'), events: ['link.deleted'] });
    const other = await createAccountWithToken(testApp);

    await testApp.request('/api/links', {
      method: 'POST',
      headers: owner.apiKey,
      json: { url: 'https://example.com/p', custom_code: 'wh-picky' },
    });
    await testApp.request('/api/links', {
      method: 'POST',
      headers: other.apiKey,
      json: { url: 'https://example.com/o', custom_code: 'wh-other' },
    });
    await testApp.request('/api/links/wh-other', { method: 'DELETE', headers: other.apiKey });
    await testApp.request('/api/links/wh-picky', { method: 'DELETE', headers: owner.apiKey });

    const [message] = await receivedAt('/picky', 1);
    expect(verifyMessage(picky.secret!, message)).toMatchObject({ type: 'link.deleted', data: { code: 'wh-picky' } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.at('/picky')).toHaveLength(1);
    expect(receiver.at('/links').map((m) => m.json.data.code)).not.toContain('wh-other');
  });

  it('stores nothing for an account without webhooks', async () => {
    const plain = await createAccountWithToken(testApp);
    const response = await testApp.request('/api/links', {
      method: 'POST',
      headers: plain.apiKey,
      json: { url: 'https://example.com/plain' },
    });
    expect(response.status).toBe(201);
    const prisma = testApp.app.get(PrismaService);
    const forAccount = { where: { endpoint: { accountId: plain.accountId } } };
    expect(await prisma.webhookMessage.count(forAccount)).toBe(0);
    expect(await prisma.webhookNewMessage.count(forAccount)).toBe(0);
  });
});

describe('link.updated when a link is disabled or enabled by an admin, a blocked host or its account', () => {
  let owner: TestAccount;
  let admin: TestAccount;
  let secret: string;

  beforeAll(async () => {
    [owner, admin] = await Promise.all([createAccountWithToken(testApp), createAdminWithToken(testApp)]);
    secret = (await addWebhook(owner, { url: receiver.url('/states'), events: ['link.updated'] })).secret!;
  });

  /** The link.updated messages about `code` received so far, their signatures checked. */
  function updatesOf(code: string): Array<{ data: Record<string, unknown> }> {
    return receiver
      .at('/states')
      .map((message) => verifyMessage(secret, message) as { type: string; data: Record<string, unknown> })
      .filter((message) => message.type === 'link.updated' && message.data.code === code);
  }

  const create = (code: string, url: string) => createLink(testApp, owner, { url, custom_code: code });

  /** The link as its owner reads it now. */
  async function ownersView(code: string): Promise<Record<string, unknown>> {
    const response = await testApp.request(`/api/links/${code}`, { headers: owner.apiKey });
    expect(response.status).toBe(200);
    return (await response.json()) as Record<string, unknown>;
  }

  function admin$(path: string, init: { method: string; json?: unknown }): Promise<Response> {
    return testApp.request(`/api/admin/${path}`, { ...init, headers: admin.bearer });
  }

  it('tells the owner when an admin disables the link and when an admin enables it, once each', async () => {
    await create('st-admin', 'https://example.com/state-admin');
    expect((await admin$('links/st-admin/disable', { method: 'POST', json: { reason: 'Phishing' } })).status).toBe(200);
    await eventually(() => Promise.resolve(expect(updatesOf('st-admin')).toHaveLength(1)));
    const disabled = await ownersView('st-admin');
    expect(disabled.disabled_at).toMatch(ISO_DATE);
    expect(updatesOf('st-admin')[0].data).toEqual(disabled);

    // Disabled again: nothing changed, nothing sent.
    expect((await admin$('links/st-admin/disable', { method: 'POST', json: { reason: 'Again' } })).status).toBe(200);
    expect((await admin$('links/st-admin/enable', { method: 'POST' })).status).toBe(200);
    await eventually(() => Promise.resolve(expect(updatesOf('st-admin')).toHaveLength(2)));
    expect(updatesOf('st-admin')[1].data).toEqual({ ...(await ownersView('st-admin')), disabled_at: null });
  });

  it('tells the owner when a blocked host disables the link and when unblocking enables it', async () => {
    await create('st-host', 'https://shop.states-blocked.example/offer');
    await create('st-other', 'https://example.com/state-other');
    expect((await admin$('blocked-hosts', { method: 'POST', json: { host: 'states-blocked.example' } })).status).toBe(
      201,
    );
    await eventually(() => Promise.resolve(expect(updatesOf('st-host')).toHaveLength(1)));
    expect(updatesOf('st-host')[0].data).toEqual(await ownersView('st-host'));
    expect(updatesOf('st-host')[0].data.disabled_at).toMatch(ISO_DATE);

    expect((await admin$('blocked-hosts/states-blocked.example', { method: 'DELETE' })).status).toBe(204);
    await eventually(() => Promise.resolve(expect(updatesOf('st-host')).toHaveLength(2)));
    expect(updatesOf('st-host')[1].data).toMatchObject({ code: 'st-host', disabled_at: null });
    // The link on another host was never touched.
    expect(updatesOf('st-other')).toHaveLength(0);
  });

  it('tells the owner about each live link when the account is disabled, and again when it is enabled', async () => {
    await create('st-acct', 'https://example.com/state-account');
    const accounts = testApp.app.get(AccountsService);
    const before = updatesOf('st-other').length;
    await accounts.disable(owner.accountId, 'Spam');
    await eventually(() => Promise.resolve(expect(updatesOf('st-acct')).toHaveLength(1)));
    await eventually(() => Promise.resolve(expect(updatesOf('st-other')).toHaveLength(before + 1)));
    expect(updatesOf('st-acct')[0].data.disabled_at).toMatch(ISO_DATE);

    await accounts.enable(owner.accountId);
    await eventually(() => Promise.resolve(expect(updatesOf('st-acct')).toHaveLength(2)));
    expect(updatesOf('st-acct')[1].data).toEqual(await ownersView('st-acct'));
    expect(updatesOf('st-acct')[1].data.disabled_at).toBeNull();
  });
});

describe('delivery', () => {
  let owner: TestAccount;

  beforeAll(async () => {
    owner = await createAccountWithToken(testApp);
  });

  /** A webhook at `path` and one test message sent to it. */
  async function sendTest(path: string): Promise<{ webhook: Webhook; delivery: Delivery }> {
    const webhook = await addWebhook(owner, { url: receiver.url(path) });
    const response = await testApp.request(`/api/webhooks/${webhook.id}/test`, {
      method: 'POST',
      headers: owner.apiKey,
    });
    expect(response.status).toBe(202);
    return { webhook, delivery: (await response.json()) as Delivery };
  }

  async function deliveryOf(webhook: Webhook): Promise<Delivery> {
    const [delivery] = await deliveries(owner, webhook.id);
    return delivery;
  }

  it('sends a test message: 202 at once, then delivered', async () => {
    const { webhook, delivery } = await sendTest('/test');

    expect(delivery).toMatchObject({ event: 'webhook.test', status: 'pending', attempts: 0, response_status: null });
    const [message] = await receivedAt('/test', 1);
    expect(verifyMessage(webhook.secret!, message)).toMatchObject({
      type: 'webhook.test',
      data: { webhook_id: webhook.id, url: receiver.url('/test') },
    });
    expect(message.headers['webhook-id']).toBe(delivery.message_id);
    await eventually(async () =>
      expect(await deliveryOf(webhook)).toMatchObject({ status: 'delivered', attempts: 1, response_status: 200 }),
    );
    const read = (await (
      await testApp.request(`/api/webhooks/${webhook.id}`, { headers: owner.apiKey })
    ).json()) as Record<string, unknown>;
    expect(read.last_delivered_at).toMatch(ISO_DATE);
  });

  it('retries a 500 after the schedule with the same webhook-id, then counts the 200 as delivered', async () => {
    let calls = 0;
    receiver.behaviour = (request, response) => {
      if (request.url === '/flaky' && calls++ === 0) response.writeHead(500).end('down');
      else response.end('ok');
    };
    const { webhook } = await sendTest('/flaky');

    const [first, second] = await receivedAt('/flaky', 2, 8000);
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(verifyMessage(webhook.secret!, second)).toMatchObject({ type: 'webhook.test' });
    expect(second.at - first.at).toBeGreaterThanOrEqual(900);
    await eventually(async () =>
      expect(await deliveryOf(webhook)).toMatchObject({ status: 'delivered', attempts: 2, response_status: 200 }),
    );
  });

  it('fails a message after the first attempt and one retry per WEBHOOK_RETRY_SCHEDULE entry', async () => {
    receiver.behaviour = (request, response) => response.writeHead(request.url === '/broken' ? 503 : 200).end();
    const counters = testApp.app.get(ServiceCounters);
    const [retriedBefore, failedBefore] = [counters.webhooksRetried, counters.webhooksFailed];
    const { webhook } = await sendTest('/broken');

    await eventually(
      async () =>
        expect(await deliveryOf(webhook)).toMatchObject({
          status: 'failed',
          attempts: 4,
          response_status: 503,
          next_attempt_at: null,
        }),
      10_000,
    );
    expect(receiver.at('/broken')).toHaveLength(4);
    expect(new Set(receiver.at('/broken').map((m) => m.headers['webhook-id'])).size).toBe(1);
    // shortlink_webhook_deliveries_total{result="retried"|"failed"}
    expect(counters.webhooksRetried - retriedBefore).toBeGreaterThanOrEqual(3);
    expect(counters.webhooksFailed - failedBefore).toBeGreaterThanOrEqual(1);
  });

  it('does not follow a redirect: a 302 is a failed attempt', async () => {
    receiver.behaviour = (request, response) => {
      if (request.url === '/moved') response.writeHead(302, { location: receiver.url('/moved-to') }).end();
      else response.end('ok');
    };
    const { webhook } = await sendTest('/moved');

    await eventually(async () =>
      expect(await deliveryOf(webhook)).toMatchObject({ status: 'pending', attempts: 1, response_status: 302 }),
    );
    expect(receiver.at('/moved-to')).toHaveLength(0);
  });

  it('gives up on a receiver that hangs after the time limit, while others are served at once', async () => {
    receiver.behaviour = (request, response) => {
      if (request.url !== '/hangs') response.end('ok');
    };
    const hanging = await sendTest('/hangs');
    await receivedAt('/hangs', 1);

    const started = Date.now();
    await sendTest('/meanwhile');
    await receivedAt('/meanwhile', 1);
    expect(Date.now() - started).toBeLessThan(900);
    const redirect = await testApp.request('/nonexistent-code');
    expect(redirect.status).toBe(404);

    await eventually(async () =>
      expect(await deliveryOf(hanging.webhook)).toMatchObject({
        status: 'pending',
        attempts: 1,
        response_status: null,
      }),
    );
  });

  it('reads a bounded part of an endless body: the 200 counts, the rest is dropped', async () => {
    receiver.behaviour = (request, response) => {
      if (request.url !== '/endless') return void response.end('ok');
      response.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const pump = () => {
        while (response.write(chunk)) if (response.destroyed) return;
      };
      response.on('drain', pump);
      pump();
    };
    const { webhook } = await sendTest('/endless');

    await eventually(async () =>
      expect(await deliveryOf(webhook)).toMatchObject({ status: 'delivered', attempts: 1, response_status: 200 }),
    );
  });

  it('counts a connection closed without an answer as a failed attempt', async () => {
    receiver.behaviour = (request, response) => {
      if (request.url === '/closes') request.socket.destroy();
      else response.end('ok');
    };
    const { webhook } = await sendTest('/closes');

    await eventually(async () =>
      expect(await deliveryOf(webhook)).toMatchObject({ status: 'pending', attempts: 1, response_status: null }),
    );
  });

  it('deletes settled messages after 30 days, never pending ones, of every endpoint, in slices', async () => {
    // An account of its own: the shared one is near its endpoint limit.
    const account = await createAccountWithToken(testApp);
    const webhook = await addWebhook(account, { url: receiver.url('/old') });
    const other = await addWebhook(account, { url: receiver.url('/old-too') });
    const prisma = testApp.app.get(PrismaService);
    const old = new Date(Date.now() - KEEP_MESSAGES_MS - 60_000);
    const recent = new Date(Date.now() - KEEP_MESSAGES_MS + 3_600_000);
    const row = (endpointId: string, n: number, status: string, createdAt = old) => ({
      id: `0b6f1f5e-8a4c-4c52-9f43-${endpointId.slice(0, 4)}${String(n).padStart(8, '0')}`,
      endpointId,
      messageId: `msg_${endpointId.slice(0, 4)}${String(n).padStart(28, '0')}`,
      event: 'webhook.test',
      payload: '{}',
      status,
      nextAttemptAt: status === 'pending' ? new Date(Date.now() + 86_400_000) : null,
      createdAt,
    });
    // More than one slice (5,000 rows a statement) of the other endpoint's.
    const many = Array.from({ length: 5_003 }, (_, n) => row(other.id, n, n % 2 === 0 ? 'delivered' : 'failed'));
    await prisma.webhookMessage.createMany({
      data: [
        row(webhook.id, 1, 'delivered'),
        row(webhook.id, 2, 'failed'),
        row(webhook.id, 3, 'pending'),
        row(webhook.id, 4, 'delivered', recent),
        ...many,
        row(other.id, 9_999, 'pending'),
      ],
    });

    const deleted = await testApp.app.get(WebhookMessageStore).prune(new Date(Date.now() - KEEP_MESSAGES_MS));

    expect(deleted).toBe(2 + 5_003);
    expect((await deliveries(account, webhook.id)).map((delivery) => delivery.status).sort()).toEqual([
      'delivered',
      'pending',
    ]);
    expect(await prisma.webhookMessage.count({ where: { endpointId: other.id } })).toBe(1);
  });

  it('disables an endpoint with nothing delivered for 5 days while messages failed', async () => {
    receiver.behaviour = (request, response) => response.writeHead(request.url === '/dead' ? 500 : 200).end();
    const webhook = await addWebhook(owner, { url: receiver.url('/dead') });
    const sixDaysAgo = new Date(Date.now() - 6 * 86_400_000);
    await testApp.app.get(PrismaService).webhookEndpoint.update({
      where: { id: webhook.id },
      data: { failingSince: sixDaysAgo, lastFailedAt: sixDaysAgo },
    });

    await testApp.request(`/api/webhooks/${webhook.id}/test`, { method: 'POST', headers: owner.apiKey });

    await eventually(async () => {
      const read = (await (
        await testApp.request(`/api/webhooks/${webhook.id}`, { headers: owner.apiKey })
      ).json()) as Webhook;
      expect(read.disabled_at).toMatch(ISO_DATE);
    });
    expect(await deliveryOf(webhook)).toMatchObject({ status: 'failed', attempts: 1, next_attempt_at: null });
    await expectProblem(
      await testApp.request(`/api/webhooks/${webhook.id}/test`, { method: 'POST', headers: owner.apiKey }),
      409,
      'webhook_disabled',
    );
    await testApp.request('/api/links', {
      method: 'POST',
      headers: owner.apiKey,
      json: { url: 'https://example.com/after' },
    });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.at('/dead')).toHaveLength(1);
  });
});

describe('link.clicked', () => {
  it("summarises a link's clicks, bots apart, at most once per WEBHOOK_CLICK_INTERVAL_SECONDS", async () => {
    const owner = await createAccountWithToken(testApp);
    const webhook = await addWebhook(owner, { url: receiver.url('/clicks'), events: ['link.clicked'] });
    const created = await testApp.request('/api/links', {
      method: 'POST',
      headers: owner.apiKey,
      json: { url: 'https://example.com/clicked', custom_code: 'wh-clicked' },
    });
    expect(created.status).toBe(201);
    await testApp.request('/api/links', {
      method: 'POST',
      headers: owner.apiKey,
      json: { url: 'https://example.com/quiet', custom_code: 'wh-quiet' },
    });

    const follow = (headers: Record<string, string> = {}) => testApp.request('/wh-clicked', { headers });
    await Promise.all([follow({ 'user-agent': BROWSER }), follow({ 'user-agent': BROWSER }), follow()]);

    const [first] = await receivedAt('/clicks', 1);
    const summary = verifyMessage(webhook.secret!, first) as ReceivedMessage['json'];
    expect(summary).toEqual({
      type: 'link.clicked',
      timestamp: expect.stringMatching(ISO_DATE),
      data: {
        code: 'wh-clicked',
        clicks: 3,
        bots: 1,
        from: expect.stringMatching(ISO_DATE),
        to: summary.timestamp,
      },
    });
    expect(Date.parse(summary.data.from as string)).toBeLessThan(Date.parse(summary.data.to as string));

    await Promise.all([follow({ 'user-agent': BROWSER }), follow({ 'user-agent': BROWSER })]);
    const [, second] = await receivedAt('/clicks', 2);
    const next = verifyMessage(webhook.secret!, second) as ReceivedMessage['json'];
    expect(next.data).toMatchObject({ code: 'wh-clicked', clicks: 2, bots: 0, from: summary.data.to });
    expect(Date.parse(next.timestamp) - Date.parse(summary.timestamp)).toBeGreaterThanOrEqual(1000);

    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.at('/clicks')).toHaveLength(2);
    expect(receiver.at('/clicks').map((message) => message.json.data.code)).not.toContain('wh-quiet');
  });

  it('keeps no tally for an account whose endpoints do not receive link.clicked', async () => {
    const owner = await createAccountWithToken(testApp);
    await addWebhook(owner, { url: receiver.url('/no-clicks'), events: ['link.created'] });
    await testApp.request('/api/links', {
      method: 'POST',
      headers: owner.apiKey,
      json: { url: 'https://example.com/unwatched', custom_code: 'wh-unwatched' },
    });

    await testApp.request('/wh-unwatched', { headers: { 'user-agent': BROWSER } });

    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await testApp.app.get(PrismaService).webhookClickTally.count({ where: { code: 'wh-unwatched' } })).toBe(0);
    expect(receiver.at('/no-clicks').map((message) => message.json.type)).toEqual(['link.created']);
  });
});

describe('a restart with 1,000 messages pending', () => {
  it('loses none: the next instance on the database delivers each once, within 10 seconds', async () => {
    const { createTestDatabase } = await import('./support/database/test-database.js');
    const database = await createTestDatabase();
    const hook = await WebhookReceiver.start();
    try {
      // The first instance's receiver takes the messages and never answers: its attempts are under
      // way when it stops, and cut off (then released) by the shutdown.
      hook.behaviour = () => undefined;
      const first = await startTestApp(TEST_RIG, database);
      const account = await createAccountWithToken(first);
      const webhook = await addWebhook(account, { url: hook.url('/restart'), events: ['link.created'] }, first);
      const bulk = await first.request('/api/links/bulk', {
        method: 'POST',
        headers: account.apiKey,
        json: { links: Array.from({ length: 1000 }, (_, i) => ({ url: `https://example.com/r/${i}` })) },
      });
      expect(bulk.status).toBe(200);
      await eventually(() => Promise.resolve(expect(hook.received.length).toBeGreaterThan(0)));
      await first.close();

      const answered = new Map<string, number>();
      hook.behaviour = (_request, response, message) => {
        const id = String(message.headers['webhook-id']);
        answered.set(id, (answered.get(id) ?? 0) + 1);
        response.end('ok');
      };
      const started = Date.now();
      const second = await startTestApp(TEST_RIG, database);
      try {
        await eventually(() => Promise.resolve(expect(answered.size).toBe(1000)), 10_000);
        expect(Date.now() - started).toBeLessThan(10_000);
        expect([...answered.values()].every((times) => times === 1)).toBe(true);
        const sample = hook.received[hook.received.length - 1];
        expect(verifyMessage(webhook.secret!, sample)).toMatchObject({ type: 'link.created' });
        await eventually(async () => {
          const counts = await second.app.get(PrismaService).webhookMessage.groupBy({
            by: ['status'],
            _count: { _all: true },
          });
          expect(counts).toEqual([{ status: 'delivered', _count: { _all: 1000 } }]);
        });
      } finally {
        await second.close();
      }
    } finally {
      await hook.close();
      await database.drop();
    }
  });
});
