import { createShortlinkClient, type ShortlinkClient } from '../sdk/client.js';
import { createAccountWithToken, type TestAccount } from './support/factories.js';
import { startTestApp, TEST_SHORT_BASE_URL, type TestApp } from './support/test-app.js';

/**
 * The generated SDK (sdk/schema.d.ts from openapi.json, on openapi-fetch) against the live
 * service, for every operation of the document: a change that breaks generated clients, in their
 * types or at run time, fails here.
 */
describe('the generated TypeScript SDK', () => {
  let testApp: TestApp;
  let owner: TestAccount;
  let anonymous: ShortlinkClient;
  let withApiKey: ShortlinkClient;
  let withBearer: ShortlinkClient;

  beforeAll(async () => {
    testApp = await startTestApp();
    owner = await createAccountWithToken(testApp);
    anonymous = createShortlinkClient({ baseUrl: testApp.baseUrl });
    withApiKey = createShortlinkClient({ baseUrl: testApp.baseUrl, token: owner.token });
    withBearer = createShortlinkClient({ baseUrl: testApp.baseUrl, token: owner.token, tokenHeader: 'bearer' });
  });

  afterAll(async () => {
    await testApp.close();
  });

  describe('createLink (POST /api/links)', () => {
    it('creates an anonymous link', async () => {
      const { data, error, response } = await anonymous.POST('/api/links', {
        body: { url: 'https://example.com/anon' },
      });

      expect(error).toBeUndefined();
      expect(response.status).toBe(201);
      expect(data).toEqual({
        code: expect.stringMatching(/^[0-9A-Za-z]{7}$/),
        short_url: `${TEST_SHORT_BASE_URL}/${data?.code}`,
        url: 'https://example.com/anon',
        expires_at: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        clicks: 0,
        tags: [],
        password_protected: false,
        ios_url: null,
        android_url: null,
      });
      expect(response.headers.get('location')).toBe(`/api/links/${data?.code}`);
    });

    it('creates a link with a custom code for a token (Bearer)', async () => {
      const { data, response } = await withBearer.POST('/api/links', {
        body: { url: 'https://example.com/custom', custom_code: 'sdk-custom' },
      });

      expect(response.status).toBe(201);
      expect(data?.code).toBe('sdk-custom');
    });

    it('answers 400 invalid_url as a typed problem', async () => {
      const { data, error, response } = await anonymous.POST('/api/links', { body: { url: 'javascript:alert(1)' } });

      expect(data).toBeUndefined();
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toContain('application/problem+json');
      expect(error).toEqual(
        expect.objectContaining({ type: 'about:blank', title: 'Bad Request', status: 400, error: 'invalid_url' }),
      );
    });

    it('answers 401 for an invalid token', async () => {
      const client = createShortlinkClient({ baseUrl: testApp.baseUrl, token: `sl_${'x'.repeat(40)}` });
      const { error, response } = await client.POST('/api/links', { body: { url: 'https://example.com/' } });

      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer');
      expect(error?.error).toBe('unauthorized');
    });

    it('answers 409 code_taken for a code in use', async () => {
      const { error, response } = await withApiKey.POST('/api/links', {
        body: { url: 'https://example.com/again', custom_code: 'sdk-custom' },
      });

      expect(response.status).toBe(409);
      expect(error?.error).toBe('code_taken');
    });
  });

  describe('listLinks (GET /api/links)', () => {
    it('lists the caller’s links with the pagination it used', async () => {
      const { data, response } = await withApiKey.GET('/api/links', { params: { query: { limit: 1, offset: 0 } } });

      expect(response.status).toBe(200);
      expect(data).toEqual({ data: [expect.objectContaining({ code: 'sdk-custom' })], total: 1, limit: 1, offset: 0 });
    });

    it('answers 400 for a limit out of range', async () => {
      const { error, response } = await withApiKey.GET('/api/links', { params: { query: { limit: 101 } } });

      expect(response.status).toBe(400);
      expect(error?.error).toBe('validation_failed');
    });

    it('answers 401 without a token', async () => {
      const { error, response } = await anonymous.GET('/api/links');

      expect(response.status).toBe(401);
      expect(error?.error).toBe('unauthorized');
    });

    it('answers 403 for a token without links:read', async () => {
      const writer = await createAccountWithToken(testApp, ['links:write']);
      const client = createShortlinkClient({ baseUrl: testApp.baseUrl, token: writer.token });
      const { error, response } = await client.GET('/api/links');

      expect(response.status).toBe(403);
      expect(error?.error).toBe('forbidden');
    });
  });

  describe('createLinks (POST /api/links/bulk), with an Idempotency-Key', () => {
    it('creates items one by one, reports a bad one, and answers a retry from the first call', async () => {
      const body = {
        links: [
          { url: 'https://example.com/sdk-bulk', expires_at: '2099-01-01T00:00:00.000Z' },
          { url: 'ftp://example.com/' },
        ],
      };
      const params = { header: { 'Idempotency-Key': `sdk-${Date.now()}` } };

      const first = await withApiKey.POST('/api/links/bulk', { params, body });
      const retry = await withApiKey.POST('/api/links/bulk', { params, body });

      expect(first.response.status).toBe(200);
      expect(first.data?.data[0].link).toEqual(
        expect.objectContaining({ url: 'https://example.com/sdk-bulk', expires_at: '2099-01-01T00:00:00.000Z' }),
      );
      expect(first.data?.data[1].error?.error).toBe('invalid_url');
      expect(retry.data).toEqual(first.data);
      expect(retry.response.headers.get('idempotent-replayed')).toBe('true');
    });
  });

  describe('listLinks with q, and getQrCode', () => {
    it('finds a link by part of its URL and gets its QR code as SVG', async () => {
      await withApiKey.POST('/api/links', {
        body: { url: 'https://example.com/Findable-SDK', custom_code: 'sdk-find' },
      });

      const found = await withApiKey.GET('/api/links', { params: { query: { q: 'findable-sdk' } } });
      expect(found.data?.data.map((link) => link.code)).toEqual(['sdk-find']);
      expect(found.data?.total).toBe(1);

      const qr = await withApiKey.GET('/api/links/{code}/qr', {
        params: { path: { code: 'sdk-find' } },
        parseAs: 'text',
      });
      expect(qr.response.status).toBe(200);
      expect(qr.data).toMatch(/^<svg /);
    });
  });

  describe('getLink, updateLink, deleteLink (/api/links/{code})', () => {
    it('reads, retargets and deletes a link', async () => {
      const path = { code: 'sdk-custom' };

      const read = await withApiKey.GET('/api/links/{code}', { params: { path } });
      expect(read.response.status).toBe(200);
      expect(read.data?.url).toBe('https://example.com/custom');

      const updated = await withApiKey.PUT('/api/links/{code}', {
        params: { path },
        body: { url: 'https://example.com/retargeted' },
      });
      expect(updated.response.status).toBe(200);
      expect(updated.data).toEqual(
        expect.objectContaining({ code: 'sdk-custom', url: 'https://example.com/retargeted' }),
      );

      const deleted = await withApiKey.DELETE('/api/links/{code}', { params: { path } });
      expect(deleted.response.status).toBe(204);
      expect(deleted.error).toBeUndefined();

      const gone = await withApiKey.GET('/api/links/{code}', { params: { path } });
      expect(gone.response.status).toBe(404);
      expect(gone.error?.error).toBe('not_found');
    });

    it('answers 400 invalid_url when updating to a bad target', async () => {
      const { data: link } = await withApiKey.POST('/api/links', { body: { url: 'https://example.com/to-update' } });
      const { error, response } = await withApiKey.PUT('/api/links/{code}', {
        params: { path: { code: link!.code } },
        body: { url: 'ftp://example.com/' },
      });

      expect(response.status).toBe(400);
      expect(error?.error).toBe('invalid_url');
    });

    it('answers 404 for another account’s link, and for deleting an unknown one', async () => {
      const { data: foreign } = await anonymous.POST('/api/links', { body: { url: 'https://example.com/foreign' } });

      const read = await withApiKey.GET('/api/links/{code}', { params: { path: { code: foreign!.code } } });
      const deleted = await withApiKey.DELETE('/api/links/{code}', { params: { path: { code: 'no-such-code' } } });

      expect([read.response.status, read.error?.error]).toEqual([404, 'not_found']);
      expect([deleted.response.status, deleted.error?.error]).toEqual([404, 'not_found']);
    });
  });

  describe('shorten (GET /api/s)', () => {
    it('answers the short URL as plain text', async () => {
      const { data, response } = await anonymous.GET('/api/s', {
        params: { query: { url: 'https://example.com/plain?a=1&b=2' } },
        parseAs: 'text',
      });

      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(data).toMatch(new RegExp(`^${TEST_SHORT_BASE_URL}/[0-9A-Za-z]{7}$`));
    });

    it('answers errors as plain text', async () => {
      const { error, response } = await anonymous.GET('/api/s', {
        params: { query: { url: 'not a url' } },
        parseAs: 'text',
      });

      expect(response.status).toBe(400);
      expect(error).toBe('error: invalid_url');
    });
  });

  describe('redirect and redirectHead (GET and HEAD /{code})', () => {
    it('answers 302 with the target in Location', async () => {
      const { data: link } = await anonymous.POST('/api/links', { body: { url: 'https://example.com/target' } });
      const path = { code: link!.code };

      const get = await anonymous.GET('/{code}', { params: { path }, redirect: 'manual' });
      const head = await anonymous.HEAD('/{code}', { params: { path }, redirect: 'manual' });

      for (const { response } of [get, head]) {
        expect(response.status).toBe(302);
        expect(response.headers.get('location')).toBe('https://example.com/target');
        expect(response.headers.get('cache-control')).toBe('private, no-store');
      }
    });

    it('answers 404 for an unknown code', async () => {
      const { error, response } = await anonymous.GET('/{code}', { params: { path: { code: 'unknown-code' } } });

      expect(response.status).toBe(404);
      expect(error?.error).toBe('not_found');
    });
  });

  describe('liveness and readiness (GET /health, /health/ready)', () => {
    it('answers ok', async () => {
      const live = await anonymous.GET('/health');
      const ready = await anonymous.GET('/health/ready');

      expect(live.data).toEqual({ status: 'ok' });
      expect(ready.data).toEqual({ status: 'ok', database: 'ok' });
    });
  });
});
