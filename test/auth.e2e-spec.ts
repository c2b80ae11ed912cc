import { SCOPES } from '../src/auth/scopes.js';
import { generateRawToken } from '../src/auth/token-secret.js';
import { TokensService } from '../src/auth/tokens.service.js';
import { dumpDatabase } from './support/database/database-dump.js';
import { createAccountWithToken, type TestAccount } from './support/factories.js';
import { startServerProcess } from './support/processes/server-process.js';
import { startTestApp, type TestApp } from './support/test-app.js';

describe('API token authentication', () => {
  let testApp: TestApp;
  let owner: TestAccount;
  /** Every response body this spec received: none may contain a raw token. */
  const bodies: string[] = [];

  const call = async (path: string, init: RequestInit & { json?: unknown } = {}) => {
    const response = await testApp.request(path, init);
    const body = await response.text();
    bodies.push(body);
    return {
      status: response.status,
      headers: response.headers,
      body,
      json: () => JSON.parse(body) as Record<string, unknown>,
    };
  };
  const listLinks = (headers: Record<string, string>) => call('/api/links', { headers });

  const expectUnauthorized = (response: Awaited<ReturnType<typeof call>>) => {
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({
      type: 'about:blank',
      status: 401,
      title: 'Unauthorized',
      error: 'unauthorized',
    });
  };

  beforeAll(async () => {
    testApp = await startTestApp();
    owner = await createAccountWithToken(testApp);
  });

  afterAll(async () => {
    await testApp.close();
  });

  describe('without a token', () => {
    it('answers 401 unauthorized with WWW-Authenticate: Bearer as problem+json', async () => {
      expectUnauthorized(await listLinks({}));
    });
  });

  describe('with a valid token', () => {
    it('accepts X-API-Key', async () => {
      const response = await listLinks(owner.apiKey);

      expect(response.status).toBe(200);
      expect(response.json()).toMatchObject({ data: [], total: 0 });
    });

    it('accepts Authorization: Bearer', async () => {
      expect((await listLinks(owner.bearer)).status).toBe(200);
    });

    it.each(['bearer', 'BEARER', 'BeArEr'])('accepts the scheme spelled %s', async (scheme) => {
      expect((await listLinks({ authorization: `${scheme} ${owner.token}` })).status).toBe(200);
    });

    it('accepts both headers carrying the same token', async () => {
      expect((await listLinks({ ...owner.apiKey, ...owner.bearer })).status).toBe(200);
    });

    it('records when the token was last used', async () => {
      const account = await createAccountWithToken(testApp);
      const before = Date.now();

      expect((await listLinks(account.apiKey)).status).toBe(200);

      // The use is recorded after the answer, without delaying it.
      let lastUsedAt: string | null = null;
      for (let attempt = 0; attempt < 50 && !lastUsedAt; attempt++) {
        [{ last_used_at: lastUsedAt }] = await testApp.app.get(TokensService).listForAccount(account.accountId);
        if (!lastUsedAt) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(lastUsedAt).not.toBeNull();
      expect(new Date(lastUsedAt!).getTime()).toBeGreaterThanOrEqual(before - 1000);
    });
  });

  describe('with a bad or unusable token', () => {
    it.each([
      ['Basic x', 'another scheme'],
      ['Token x', 'another scheme'],
      ['Bearer', 'no token'],
      ['Bearer a b', 'two values'],
    ])('refuses Authorization "%s" (%s)', async (authorization) => {
      expectUnauthorized(await listLinks({ authorization }));
    });

    it('refuses a malformed Authorization header even next to a valid X-API-Key', async () => {
      expectUnauthorized(await listLinks({ ...owner.apiKey, authorization: 'Basic x' }));
    });

    it('refuses two different tokens in the two headers, even if both are valid', async () => {
      const other = await createAccountWithToken(testApp);

      expectUnauthorized(await listLinks({ ...owner.apiKey, ...other.bearer }));
      expectUnauthorized(await listLinks({ 'x-api-key': owner.token, authorization: 'Bearer sl_x' }));
    });

    it('refuses an empty X-API-Key', async () => {
      expectUnauthorized(await listLinks({ 'x-api-key': '' }));
    });

    it.each([
      ['a well-formed but unknown token', () => generateRawToken()],
      ['a value that is not a token at all', () => 'letmein'],
      [
        'a token with one character changed',
        () => `${owner.token.slice(0, -1)}${owner.token.endsWith('a') ? 'b' : 'a'}`,
      ],
      ['a valid token in the wrong case', () => owner.token.toUpperCase().replace(/^SL_/, 'sl_')],
    ])('refuses %s', async (_case, token) => {
      expectUnauthorized(await listLinks({ 'x-api-key': token() }));
      expectUnauthorized(await listLinks({ authorization: `Bearer ${token()}` }));
    });

    it('refuses a revoked token at once', async () => {
      const account = await createAccountWithToken(testApp);
      expect((await listLinks(account.apiKey)).status).toBe(200);

      await testApp.app.get(TokensService).revoke(account.tokenId);

      expectUnauthorized(await listLinks(account.apiKey));
      expectUnauthorized(await listLinks(account.bearer));
    });

    it('refuses a bad token on a route where tokens are optional, instead of treating the call as anonymous', async () => {
      const response = await call('/api/links', {
        method: 'POST',
        headers: { 'x-api-key': generateRawToken() },
        json: { url: 'https://example.com/' },
      });

      expectUnauthorized(response);
    });
  });

  describe('scopes', () => {
    it('answers 403 forbidden to a valid token lacking the scope the route needs', async () => {
      const writeOnly = await createAccountWithToken(testApp, ['links:write']);

      const response = await listLinks(writeOnly.bearer);

      expect(response.status).toBe(403);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(response.headers.get('www-authenticate')).toBeNull();
      expect(response.json()).toMatchObject({ status: 403, title: 'Forbidden', error: 'forbidden' });
    });

    it('answers 403 on an optional-token route when the sent token lacks the scope', async () => {
      const readOnly = await createAccountWithToken(testApp, ['links:read']);

      const response = await call('/api/links', {
        method: 'POST',
        headers: readOnly.apiKey,
        json: { url: 'https://example.com/' },
      });

      expect(response.status).toBe(403);
      expect(response.json()).toMatchObject({ error: 'forbidden' });
      expect((await listLinks(readOnly.apiKey)).status).toBe(200);
    });

    it('lets a token with every scope call every route', async () => {
      const full = await createAccountWithToken(testApp, [...SCOPES]);
      const created = await call('/api/links', {
        method: 'POST',
        headers: full.apiKey,
        json: { url: 'https://example.com/a' },
      });

      expect(created.status).toBe(201);
      expect((await listLinks(full.apiKey)).json()).toMatchObject({ total: 1 });
    });
  });

  describe('secrecy of the raw token', () => {
    it('never appears in a response body', () => {
      // Runs after the other tests of this file: `bodies` holds every response they received.
      const tokens = [owner.token];
      expect(bodies.length).toBeGreaterThan(20);
      for (const body of bodies) {
        for (const token of tokens) {
          expect(body).not.toContain(token);
          expect(body).not.toContain(token.slice(7));
        }
      }
    });

    it('never appears in the log, even at the most verbose level', async () => {
      // The real server as a process, on the same database, logging to its stdout like in production.
      const server = await startServerProcess({ DATABASE_URL: testApp.database.url, LOG_LEVEL: 'trace' });
      const unknown = generateRawToken();
      try {
        const send = (headers: Record<string, string>, init: RequestInit = {}) =>
          fetch(`${server.baseUrl}/api/links`, { ...init, headers: { ...headers, ...init.headers } }).then(
            (r) => r.status,
          );
        expect(await send(owner.apiKey)).toBe(200);
        expect(await send(owner.bearer)).toBe(200);
        expect(await send({ authorization: `bearer ${owner.token}` })).toBe(200);
        expect(await send({ ...owner.apiKey, ...owner.bearer })).toBe(200);
        expect(await send({ 'x-api-key': unknown })).toBe(401);
        expect(await send({ authorization: `Bearer ${owner.token} extra` })).toBe(401);
        expect(await send({ ...owner.apiKey, authorization: `Bearer ${unknown}` })).toBe(401);
        expect(
          await send(owner.apiKey, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ url: 'https://example.com/logged' }),
          }),
        ).toBe(201);
      } finally {
        await server.stop();
      }

      const { stdout, stderr } = server.output();
      // The capture works: request lines were logged, with the secret headers censored.
      expect(stdout).toContain('"url":"/api/links"');
      expect(stdout).toContain('[redacted]');
      for (const token of [owner.token, unknown]) {
        expect(stdout + stderr).not.toContain(token);
        expect(stdout + stderr).not.toContain(token.slice(7));
      }
    });

    it('is stored nowhere in the database, only its hash', async () => {
      const account = await createAccountWithToken(testApp);
      await listLinks(account.apiKey);

      const dump = await dumpDatabase(testApp);

      expect(dump).toContain(account.tokenId);
      for (const token of [owner.token, account.token]) {
        expect(dump).not.toContain(token);
        // The part after the listed prefix is the secret.
        expect(dump).not.toContain(token.slice(7));
      }
    });
  });
});
