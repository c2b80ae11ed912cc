import { jest } from '@jest/globals';
import QRCode from 'qrcode';
import { PrismaService } from '../src/database/prisma.service.js';
import { requestFingerprint, IdempotencyService } from '../src/idempotency/idempotency.service.js';
import { RedirectLookup } from '../src/redirect/redirect-lookup.js';
import type { Link, LinkList, Problem } from '../sdk/client.js';
import { eventually } from './support/eventually.js';
import { createAccountWithToken, type TestAccount } from './support/factories.js';
import { TEST_SHORT_BASE_URL, type TestApp } from './support/test-app.js';
import { startTwoInstances, type TwoInstances } from './support/processes/two-instances.js';
import { expectProblem } from './support/problems.js';
import { createLink, requestAs, type ApiInit } from './support/api-client.js';

/**
 * Expiry, bulk creation, search, QR codes and idempotency keys, on two instances of the service
 * sharing one database and one Redis, as they run behind a load balancer.
 */
const ENV = {
  RATE_LIMIT_ANONYMOUS: '1000000',
  RATE_LIMIT_TOKEN: '1000000',
};

type BulkResult = { link?: Link; error?: Problem };

let instances: TwoInstances | undefined;
let a: TestApp;
let b: TestApp;
let owner: TestAccount;

beforeAll(async () => {
  instances = await startTwoInstances(ENV);
  ({ a, b } = instances);
  owner = await createAccountWithToken(a);
}, 60_000);
afterAll(async () => {
  await instances?.close();
});

const prisma = () => a.app.get(PrismaService);
const inSeconds = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();

const api = (instance: TestApp, path: string, init?: ApiInit, account = owner) =>
  requestAs(instance, account, path, init);
const create = (json: Record<string, unknown>, instance = a) => createLink(instance, owner, json);

describe('expires_at', () => {
  it('is stored and shown; the link redirects until then and answers 410 on every instance after', async () => {
    const expiresAt = inSeconds(2);
    const link = await create({ url: 'https://example.com/soon', expires_at: expiresAt });
    expect(link.expires_at).toBe(expiresAt);
    for (const instance of [a, b]) expect((await instance.request(`/${link.code}`)).status).toBe(302);

    await eventually(async () => expect((await a.request(`/${link.code}`)).status).toBe(410), 10_000);
    for (const instance of [a, b]) {
      await expectProblem(await instance.request(`/${link.code}`), 410, 'link_expired');
      expect((await instance.request(`/${link.code}`, { method: 'HEAD' })).status).toBe(410);
    }
    // The owner still sees it, expiry and all.
    const read = await api(b, `/api/links/${link.code}`);
    expect(await read.json()).toMatchObject({ code: link.code, expires_at: expiresAt });
  });

  it('knows the expiry from the cache: answering an expired link reads no database', async () => {
    // Three seconds: on a loaded CI machine, one second ran out between the creation and the first visit.
    const link = await create({ url: 'https://example.com/cached-expiry', expires_at: inSeconds(3) });
    expect((await a.request(`/${link.code}`)).status).toBe(302);
    const lookups = jest.spyOn(a.app.get(RedirectLookup), 'findTarget');
    try {
      await eventually(async () => expect((await a.request(`/${link.code}`)).status).toBe(410), 10_000);
      for (let i = 0; i < 5; i++) expect((await a.request(`/${link.code}`)).status).toBe(410);
      expect(lookups).not.toHaveBeenCalled();
    } finally {
      lookups.mockRestore();
    }
  });

  it('changed through one instance applies at once on the other, which had the link cached', async () => {
    const link = await create({ url: 'https://example.com/changed-expiry' });
    expect((await b.request(`/${link.code}`)).status).toBe(302); // now cached on B

    const soon = inSeconds(3);
    const put = await api(a, `/api/links/${link.code}`, { method: 'PUT', json: { expires_at: soon } });
    expect(put.status).toBe(200);
    expect(await put.json()).toMatchObject({ url: 'https://example.com/changed-expiry', expires_at: soon });
    await eventually(async () => expect((await b.request(`/${link.code}`)).status).toBe(410), 10_000);

    // A new expiry brings it back, on B too; null removes the expiry.
    const later = inSeconds(3600);
    await api(a, `/api/links/${link.code}`, { method: 'PUT', json: { expires_at: later } });
    expect((await b.request(`/${link.code}`)).status).toBe(302);
    const removed = await api(a, `/api/links/${link.code}`, { method: 'PUT', json: { expires_at: null } });
    expect(await removed.json()).toMatchObject({ expires_at: null });
  });

  it.each([
    ['in the past', new Date(Date.now() - 60_000).toISOString(), 'in the future'],
    ['now-ish, with an offset', '2000-01-01T00:00:00+02:00', 'in the future'],
    ['without a zone', '2099-01-01T00:00:00', 'time zone'],
    ['a date alone', '2099-01-01', 'time zone'],
    ['an impossible day', '2099-02-30T00:00:00Z', 'not a valid date'],
    ['hour 24', '2099-01-01T24:00:00Z', 'not a valid date'],
    ['words', 'tomorrow', 'time zone'],
    ['a number', 4102444800000, 'time zone'],
    ['an object', { at: '2099-01-01T00:00:00Z' }, 'time zone'],
  ])('refuses expires_at %s with 400, creating and changing nothing', async (_case, expiresAt, message) => {
    const before = await prisma().link.count();
    const refused = await api(a, '/api/links', {
      method: 'POST',
      json: { url: 'https://example.com/x', expires_at: expiresAt },
    });
    const problem = await expectProblem(refused, 400, 'validation_failed');
    expect(problem.detail).toContain(message);
    expect(problem.errors).toEqual([{ field: 'expires_at', message: problem.detail }]);
    expect(await prisma().link.count()).toBe(before);

    const link = await create({ url: 'https://example.com/keeps-its-expiry' });
    const put = await api(a, `/api/links/${link.code}`, {
      method: 'PUT',
      json: { url: 'https://example.com/changed', expires_at: expiresAt },
    });
    await expectProblem(put, 400, 'validation_failed');
    expect(await (await api(a, `/api/links/${link.code}`)).json()).toEqual(link);
  });
});

describe('POST /api/links/bulk', () => {
  const bulk = (json: unknown, init: ApiInit = {}, instance = a) =>
    api(instance, '/api/links/bulk', { method: 'POST', json, ...init });

  it('creates each valid item, reports each bad one, in request order', async () => {
    const taken = await create({ url: 'https://example.com/taken', custom_code: 'bulk-taken' });
    const expiresAt = inSeconds(3600);
    const response = await bulk({
      links: [
        { url: 'https://example.com/one' },
        { url: 'javascript:alert(1)' },
        { url: 'https://example.com/two', custom_code: 'bulk-two', expires_at: expiresAt },
        { url: 'https://example.com/again', custom_code: 'bulk-two' },
        { url: 'https://example.com/taken-again', custom_code: taken.code },
        { url: 'https://example.com/reserved', custom_code: 'api' },
        { url: 'https://example.com/stranger', foo: 1 },
        { url: 'https://example.com/past', expires_at: '2001-01-01T00:00:00Z' },
      ],
    });

    expect(response.status).toBe(200);
    const { data } = (await response.json()) as { data: BulkResult[] };
    expect(data.map((item) => (item.link ? 'link' : item.error!.error))).toEqual([
      'link',
      'invalid_url',
      'link',
      'code_taken',
      'code_taken',
      'invalid_code',
      'validation_failed',
      'validation_failed',
    ]);
    expect(data[0].link).toMatchObject({
      url: 'https://example.com/one',
      code: expect.stringMatching(/^[0-9A-Za-z]{7}$/),
    });
    expect(data[2].link).toMatchObject({
      code: 'bulk-two',
      expires_at: expiresAt,
      short_url: `${TEST_SHORT_BASE_URL}/bulk-two`,
    });
    expect(data[1].error).toMatchObject({ type: 'about:blank', status: 400, title: 'Bad Request' });
    expect(data[3].error).toMatchObject({ status: 409 });
    expect(data[6].error!.errors).toEqual([{ field: 'links[6].foo', message: 'property foo should not exist' }]);
    // What it says was created exists, readable through the other instance; nothing else was.
    for (const item of [data[0], data[2]]) {
      expect(await (await api(b, `/api/links/${item.link!.code}`)).json()).toEqual(item.link);
    }
    expect(await prisma().link.findUnique({ where: { code: 'bulk-two' } })).toMatchObject({
      url: 'https://example.com/two',
    });
    expect((await b.request('/bulk-two')).status).toBe(302);
  });

  it('takes 1000 items of 8 KiB URLs in one call', async () => {
    const links = Array.from({ length: 1000 }, (_, i) => ({
      url: `https://example.com/${String(i).padStart(4, '0')}/${'x'.repeat(8150)}`,
    }));

    const response = await bulk({ links }, {}, b);

    expect(response.status).toBe(200);
    const { data } = (await response.json()) as { data: BulkResult[] };
    expect(data).toHaveLength(1000);
    expect(data.every((item, i) => item.link?.url === links[i].url)).toBe(true);
    expect(new Set(data.map((item) => item.link!.code)).size).toBe(1000);
    const stored = await prisma().link.findMany({ where: { code: { in: data.map((item) => item.link!.code) } } });
    expect(stored).toHaveLength(1000);
  }, 30_000);

  it.each([
    ['no items', { links: [] }],
    ['1001 items', { links: Array.from({ length: 1001 }, () => ({ url: 'https://example.com/' })) }],
    [
      'items that are not objects',
      { links: [{ url: 'https://example.com/ok' }, 1, 'x', null, [{ url: 'https://example.com/' }]] },
    ],
    ['links not an array', { links: { url: 'https://example.com/' } }],
    ['no links', {}],
    ['another field', { links: [{ url: 'https://example.com/' }], extra: true }],
  ])('refuses %s with 400, creating nothing', async (_case, body) => {
    const before = await prisma().link.count();
    const problem = await expectProblem(await bulk(body), 400, 'validation_failed');
    expect(problem.errors!.length).toBeGreaterThan(0);
    expect(await prisma().link.count()).toBe(before);
  });

  it('needs a token with links:write', async () => {
    const json = { links: [{ url: 'https://example.com/' }] };
    await expectProblem(await a.request('/api/links/bulk', { method: 'POST', json }), 401, 'unauthorized');
    const reader = await createAccountWithToken(a, ['links:read']);
    await expectProblem(await api(a, '/api/links/bulk', { method: 'POST', json }, reader), 403, 'forbidden');
  });
});

describe('GET /api/links?q=', () => {
  let searcher: TestAccount;
  const search = async (q: string, extra = '') => {
    const response = await api(a, `/api/links?q=${encodeURIComponent(q)}${extra}`, {}, searcher);
    expect(response.status).toBe(200);
    return (await response.json()) as LinkList;
  };
  const codes = (list: LinkList) => list.data.map((link) => link.code).sort();

  beforeAll(async () => {
    searcher = await createAccountWithToken(a);
    const make = (url: string, custom_code: string) =>
      api(a, '/api/links', { method: 'POST', json: { url, custom_code } }, searcher);
    for (const [url, code] of [
      ['https://shop.example/Spring', 'Spring-Sale'],
      ['https://shop.example/SUMMER/deals', 'summer1'],
      ['https://example.com/100%/off', 'pct100'],
      ['https://example.com/a_b', 'under1'],
      ['https://example.com/aXb', 'plain1'],
      ['https://example.com/q?path=a\\b', 'backslash1'],
    ]) {
      expect((await make(url, code)).status).toBe(201);
    }
    // Another account's matching link is never found.
    await create({ url: 'https://shop.example/spring-other', custom_code: 'spring-owner' });
  });

  it('matches the code or the URL, ignoring case, and total counts the matches', async () => {
    expect(codes(await search('spring'))).toEqual(['Spring-Sale']);
    expect(codes(await search('SUMMER'))).toEqual(['summer1']);
    expect(codes(await search('summer'))).toEqual(['summer1']);
    expect(codes(await search('shop.EXAMPLE'))).toEqual(['Spring-Sale', 'summer1']);
    const page = await search('example', '&limit=2&offset=1');
    expect(page).toMatchObject({ total: 6, limit: 2, offset: 1 });
    expect(page.data).toHaveLength(2);
    // Past the last match: no page, the total still counted.
    expect(await search('example', '&offset=50')).toMatchObject({ data: [], total: 6 });
    expect(page.data).toHaveLength(2);
    expect((await search('nothing-like-this')).total).toBe(0);
    // Stored URLs are ASCII; a non-ASCII query (the Kelvin sign, which PostgreSQL's case folding
    // would turn into "k") finds nothing on either database.
    expect((await search('caf\u00e9')).total).toBe(0);
    expect((await search('\u212a')).total).toBe(0);
  });

  it('takes % and _ as the characters they are, not as wildcards', async () => {
    expect(codes(await search('%'))).toEqual(['pct100']);
    expect(codes(await search('100%/'))).toEqual(['pct100']);
    expect(codes(await search('a_b'))).toEqual(['under1']);
    expect(codes(await search('_'))).toEqual(['under1']);
    // And the escape character itself.
    expect(codes(await search('a\\b'))).toEqual(['backslash1']);
    expect(codes(await search('\\'))).toEqual(['backslash1']);
  });

  it.each([
    ['empty', '?q='],
    ['201 characters', `?q=${'a'.repeat(201)}`],
    ['repeated', '?q=a&q=b'],
  ])('refuses q %s with 400', async (_case, query) => {
    await expectProblem(await api(a, `/api/links${query}`), 400, 'validation_failed');
  });

  it('takes 200 characters', async () => {
    expect((await search('a'.repeat(200))).total).toBe(0);
  });
});

describe('GET /api/links/{code}/qr', () => {
  it('is an SVG QR code of the short URL', async () => {
    const link = await create({ url: 'https://example.com/print-me' });

    const response = await api(b, `/api/links/${link.code}/qr`);

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    const svg = await response.text();
    expect(svg).toMatch(/^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(svg).toBe(await QRCode.toString(link.short_url, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 }));
  });

  it("answers 404 for another account's or an unknown code, 401 without a token", async () => {
    const link = await create({ url: 'https://example.com/not-yours' });
    const stranger = await createAccountWithToken(a);
    await expectProblem(await api(a, `/api/links/${link.code}/qr`, {}, stranger), 404, 'not_found');
    await expectProblem(await api(a, '/api/links/NoSuchCode/qr'), 404, 'not_found');
    await expectProblem(await a.request(`/api/links/${link.code}/qr`), 401, 'unauthorized');
  });
});

describe('Idempotency-Key', () => {
  const post = (instance: TestApp, key: string, json: unknown, path = '/api/links', account = owner) =>
    api(instance, path, { method: 'POST', json, headers: { 'idempotency-key': key } }, account);
  const newKey = () => `key-${crypto.randomUUID()}`;

  it('answers a retry on another instance exactly as the first call, creating nothing', async () => {
    const key = newKey();
    const json = { url: 'https://example.com/once' };
    const first = await post(a, key, json);
    expect(first.status).toBe(201);
    const firstBody = await first.text();
    const before = await prisma().link.count();

    const retry = await post(b, key, json);

    expect(retry.status).toBe(201);
    expect(await retry.text()).toBe(firstBody);
    expect(retry.headers.get('location')).toBe(first.headers.get('location'));
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(await prisma().link.count()).toBe(before);
  });

  it('replays a refused first call too (the same 409 for a taken code)', async () => {
    await create({ url: 'https://example.com/mine', custom_code: 'idem-taken' });
    const key = newKey();
    const json = { url: 'https://example.com/other', custom_code: 'idem-taken' };
    const first = await post(a, key, json);
    const body = (await expectProblem(first, 409, 'code_taken')) as unknown;
    expect(await (await post(b, key, json)).json()).toEqual(body);
  });

  it('answers 422 idempotency_key_reused for the same key with another body', async () => {
    const key = newKey();
    expect((await post(a, key, { url: 'https://example.com/first' })).status).toBe(201);
    const before = await prisma().link.count();
    await expectProblem(await post(b, key, { url: 'https://example.com/second' }), 422, 'idempotency_key_reused');
    // The same key on the bulk route is another request too.
    await expectProblem(
      await post(a, key, { links: [{ url: 'https://example.com/first' }] }, '/api/links/bulk'),
      422,
      'idempotency_key_reused',
    );
    expect(await prisma().link.count()).toBe(before);
  });

  it('answers 409 idempotency_key_in_use while the first call runs, and lets a retry take over a dead one', async () => {
    const json = { url: 'https://example.com/running' };
    const record = (key: string, startedAt: Date) => ({
      accountId: owner.accountId,
      key,
      requestHash: requestFingerprint('POST', '/api/links', json),
      createdAt: startedAt,
      expiresAt: new Date(startedAt.getTime() + 86_400_000),
    });
    const running = newKey();
    await prisma().idempotencyRecord.create({ data: record(running, new Date()) });
    await expectProblem(await post(b, running, json), 409, 'idempotency_key_in_use');

    // Started 10 minutes ago and never finished: its instance died; the retry runs the call.
    const dead = newKey();
    await prisma().idempotencyRecord.create({ data: record(dead, new Date(Date.now() - 600_000)) });
    expect((await post(b, dead, json)).status).toBe(201);
    expect((await post(a, dead, json)).headers.get('idempotent-replayed')).toBe('true');
  });

  it('lets concurrent calls with one key, on both instances, create exactly one link', async () => {
    const key = newKey();
    const json = { url: `https://example.com/race/${key}` };
    const responses = await Promise.all(Array.from({ length: 12 }, (_, i) => post(i % 2 ? a : b, key, json)));

    const statuses = responses.map((response) => response.status);
    expect(statuses.every((status) => status === 201 || status === 409)).toBe(true);
    expect(statuses).toContain(201);
    const bodies = new Set(await Promise.all(responses.filter((r) => r.status === 201).map((r) => r.text())));
    expect(bodies.size).toBe(1);
    expect(await prisma().link.count({ where: { url: json.url } })).toBe(1);
  });

  it('makes bulk calls idempotent', async () => {
    const key = newKey();
    const json = { links: [{ url: 'https://example.com/bulk-once-1' }, { url: 'https://example.com/bulk-once-2' }] };
    const first = await post(a, key, json, '/api/links/bulk');
    expect(first.status).toBe(200);
    const retry = await post(b, key, json, '/api/links/bulk');
    expect(retry.status).toBe(200);
    expect(await retry.text()).toBe(await first.text());
    expect(await prisma().link.count({ where: { url: { startsWith: 'https://example.com/bulk-once-' } } })).toBe(2);
  });

  it('keeps keys per account', async () => {
    const other = await createAccountWithToken(a);
    const key = newKey();
    const mine = (await (await post(a, key, { url: 'https://example.com/per-account' })).json()) as Link;
    const theirs = await post(a, key, { url: 'https://example.com/per-account' }, '/api/links', other);
    expect(theirs.status).toBe(201);
    expect(((await theirs.json()) as Link).code).not.toBe(mine.code);
  });

  it('frees a key after 24 hours, and the cleanup deletes expired records only', async () => {
    const key = newKey();
    const json = { url: 'https://example.com/expiring-key' };
    const first = (await (await post(a, key, json)).json()) as Link;
    await prisma().idempotencyRecord.update({
      where: { accountId_key: { accountId: owner.accountId, key } },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const again = await post(b, key, json);
    expect(again.status).toBe(201);
    expect(((await again.json()) as Link).code).not.toBe(first.code);

    const expired = newKey();
    expect((await post(a, expired, { url: 'https://example.com/cleanup' })).status).toBe(201);
    await prisma().idempotencyRecord.update({
      where: { accountId_key: { accountId: owner.accountId, key: expired } },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect(await a.app.get(IdempotencyService).deleteExpired()).toBeGreaterThanOrEqual(1);
    const left = await prisma().idempotencyRecord.findMany({ where: { key: { in: [key, expired] } } });
    expect(left.map((record) => record.key)).toEqual([key]);
  });

  it.each([
    ['with a space', 'my key'],
    ['of 256 characters', 'k'.repeat(256)],
    ['of 300 characters', 'k'.repeat(300)],
    ['empty', ''],
    ['with a non-ASCII character', 'schlüssel'],
  ])('refuses a key %s with 400, creating nothing', async (_case, key) => {
    const before = await prisma().link.count();
    const response = await api(a, '/api/links', {
      method: 'POST',
      json: { url: 'https://example.com/bad-key' },
      headers: { 'idempotency-key': Buffer.from(key, 'utf8').toString('latin1') },
    });
    await expectProblem(response, 400, 'validation_failed');
    expect(await prisma().link.count()).toBe(before);
  });

  it('takes a key of 255 characters, and refuses a key without a token (401)', async () => {
    expect((await post(a, 'k'.repeat(254) + '!', { url: 'https://example.com/long-key' })).status).toBe(201);
    const anonymous = await a.request('/api/links', {
      method: 'POST',
      json: { url: 'https://example.com/anon' },
      headers: { 'idempotency-key': newKey() },
    });
    await expectProblem(anonymous, 401, 'unauthorized');
  });
});

describe('the accounts’ link counts', () => {
  it('equal their links after everything above (single, bulk and concurrent creation, deletes)', async () => {
    const extra = await create({ url: 'https://example.com/to-delete' });
    expect((await api(b, `/api/links/${extra.code}`, { method: 'DELETE' })).status).toBe(204);
    const accounts = await prisma().account.findMany({ select: { id: true, linkCount: true } });
    const counted = await prisma().link.groupBy({ by: ['accountId'], _count: { _all: true } });
    const links = new Map(counted.map((row) => [row.accountId, row._count._all]));

    expect(accounts.map((account) => [account.id, account.linkCount])).toEqual(
      accounts.map((account) => [account.id, links.get(account.id) ?? 0]),
    );
    expect(links.get(owner.accountId)).toBeGreaterThan(1000);
    // The list's total is that count.
    const listed = (await (await api(a, '/api/links?limit=1')).json()) as LinkList;
    expect(listed.total).toBe(links.get(owner.accountId));
  });
});
