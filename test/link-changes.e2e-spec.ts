import { shortlinkInProcess } from './support/processes/cli-in-process.js';
import { eventually } from './support/eventually.js';
import { createTestDatabase, type TestDatabase } from './support/database/test-database.js';
import { startTestApp, type TestApp } from './support/test-app.js';

/**
 * "Every change reaches every instance", without Redis: two instances on one database and the
 * `shortlink` command beside them, as on the embedded default (SQLite, one file) or PostgreSQL
 * alone. What one changes about a link reaches the other's redirect cache within a second
 * (REDIRECT_CACHE_TTL_SECONDS is the default 300 here: only the change feed can explain it).
 */
describe('changes made beside a running instance, without Redis', () => {
  let database: TestDatabase;
  let first: TestApp;
  let second: TestApp;
  const email = 'feed-owner@example.test';
  const adminEmail = 'feed-admin@example.test';
  let token: string;
  let adminToken: string;
  const shortlink = (args: string[]) => shortlinkInProcess(args, { DATABASE_URL: database.url });

  /** The status `path` answers on `app` within a second (a change is allowed that long to arrive). */
  const answersWithinASecond = (app: TestApp, path: string, status: number) =>
    eventually(async () => expect((await app.request(path)).status).toBe(status), 1000);

  /** Two visits: the second one is answered from the instance's cache. */
  const visitTwice = async (app: TestApp, path: string, status: number) => {
    expect((await app.request(path)).status).toBe(status);
    expect((await app.request(path)).status).toBe(status);
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    first = await startTestApp({}, database);
    second = await startTestApp({}, database);
    expect((await shortlink(['account', 'create', email])).status).toBe(0);
    expect((await shortlink(['account', 'create', adminEmail, '--admin'])).status).toBe(0);
    token = (await shortlink(['token', 'create', email])).stdout.trim();
    adminToken = (
      await shortlink(['token', 'create', adminEmail, '--scopes', 'links:read,links:write,admin'])
    ).stdout.trim();
  });

  afterAll(async () => {
    await first?.close();
    await second?.close();
    await database.drop();
  });

  const createLink = async (url: string): Promise<string> => {
    const created = await first.request('/api/links', {
      method: 'POST',
      headers: { 'x-api-key': token },
      json: { url },
    });
    expect(created.status).toBe(201);
    return ((await created.json()) as { code: string }).code;
  };

  it('`shortlink account disable` and `enable` reach both instances within a second', async () => {
    const code = await createLink('https://feed.example/disable');
    await visitTwice(first, `/${code}`, 302);
    await visitTwice(second, `/${code}`, 302);

    expect((await shortlink(['account', 'disable', email, '--reason', 'Phishing'])).status).toBe(0);
    await answersWithinASecond(first, `/${code}`, 410);
    await answersWithinASecond(second, `/${code}`, 410);

    expect((await shortlink(['account', 'enable', email])).status).toBe(0);
    await answersWithinASecond(first, `/${code}`, 302);
    await answersWithinASecond(second, `/${code}`, 302);
  });

  it('a change through one instance’s API reaches the other’s cache: edit, admin disable and enable, delete', async () => {
    const code = await createLink('https://feed.example/before');
    await visitTwice(second, `/${code}`, 302);

    const edited = await first.request(`/api/links/${code}`, {
      method: 'PUT',
      headers: { 'x-api-key': token },
      json: { url: 'https://feed.example/after' },
    });
    expect(edited.status).toBe(200);
    await eventually(async () => {
      expect((await second.request(`/${code}`)).headers.get('location')).toBe('https://feed.example/after');
    }, 1000);

    const disabled = await first.request(`/api/admin/links/${code}/disable`, {
      method: 'POST',
      headers: { 'x-api-key': adminToken },
      json: { reason: 'Checking the feed' },
    });
    expect(disabled.status).toBe(200);
    await answersWithinASecond(second, `/${code}`, 410);
    const enabled = await first.request(`/api/admin/links/${code}/enable`, {
      method: 'POST',
      headers: { 'x-api-key': adminToken },
    });
    expect(enabled.status).toBe(200);
    await answersWithinASecond(second, `/${code}`, 302);

    await visitTwice(second, `/${code}`, 302);
    expect(
      (await first.request(`/api/links/${code}`, { method: 'DELETE', headers: { 'x-api-key': token } })).status,
    ).toBe(204);
    await answersWithinASecond(second, `/${code}`, 404);
  });

  it('a host blocked on one instance disables its links on the other within a second, and unblocking brings them back', async () => {
    const code = await createLink('https://blocked-by-feed.example/page');
    await visitTwice(second, `/${code}`, 302);

    const blocked = await first.request('/api/admin/blocked-hosts', {
      method: 'POST',
      headers: { 'x-api-key': adminToken },
      json: { host: 'blocked-by-feed.example' },
    });
    expect(blocked.status).toBe(201);
    await answersWithinASecond(second, `/${code}`, 410);

    const unblocked = await first.request('/api/admin/blocked-hosts/blocked-by-feed.example', {
      method: 'DELETE',
      headers: { 'x-api-key': adminToken },
    });
    expect(unblocked.status).toBe(204);
    await answersWithinASecond(second, `/${code}`, 302);
  });
});
