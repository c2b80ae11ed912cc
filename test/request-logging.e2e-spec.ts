import { jest } from '@jest/globals';
import { AsyncLocalStorage } from 'node:async_hooks';
import { createTestDatabase, type TestDatabase } from './support/database/test-database.js';
import { startServerProcess, type ServerProcess } from './support/processes/server-process.js';
import { startTestApp } from './support/test-app.js';

interface RequestLine {
  level: number;
  msg: string;
  req: { id: string; method: string; url: string; headers: Record<string, string> };
  res: { statusCode: number };
}

function requestLines(stdout: string): RequestLine[] {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as RequestLine)
    .filter((line) => line.msg === 'request completed');
}

/** The real server as a process, logging to its stdout like in production. */
describe('request logging', () => {
  let database: TestDatabase;
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    database = await createTestDatabase();
  });

  afterEach(() => {
    server?.child.kill('SIGKILL');
    server = undefined;
  });

  afterAll(async () => {
    await database.drop();
  });

  async function createLink(baseUrl: string): Promise<string> {
    const created = await fetch(`${baseUrl}/api/links`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://example.com/logged' }),
    });
    expect(created.status).toBe(201);
    return ((await created.json()) as { code: string }).code;
  }

  it('logs one line per API request, with its id, status and censored secrets; not health probes or redirects', async () => {
    server = await startServerProcess({ DATABASE_URL: database.url, LOG_LEVEL: 'info' });
    const { baseUrl } = server;
    const code = await createLink(baseUrl);
    expect((await fetch(`${baseUrl}/api/s?url=${encodeURIComponent('https://example.com/q')}`)).status).toBe(200);
    expect((await fetch(`${baseUrl}/api/links`, { headers: { 'x-api-key': 'sl_not-a-token' } })).status).toBe(401);
    expect((await fetch(`${baseUrl}/no/such/path`)).status).toBe(404);
    expect((await fetch(`${baseUrl}/health`)).status).toBe(200);
    expect((await fetch(`${baseUrl}/health/ready`)).status).toBe(200);
    // The first is looked up through Fastify, the others come from the cache (fast path).
    for (let i = 0; i < 3; i++) expect((await fetch(`${baseUrl}/${code}`, { redirect: 'manual' })).status).toBe(302);
    await server.stop();

    const lines = requestLines(server.output().stdout);
    expect(lines.map((line) => [line.level, line.req.method, line.req.url.split('?')[0], line.res.statusCode])).toEqual(
      [
        [30, 'POST', '/api/links', 201],
        [30, 'GET', '/api/s', 200],
        [30, 'GET', '/api/links', 401],
        [30, 'GET', '/no/such/path', 404],
      ],
    );
    // A new UUID per request (none was sent), one per request.
    const ids = lines.map((line) => line.req.id);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(lines[2].req.headers['x-api-key']).toBe('[redacted]');
  });

  it('keeps a valid X-Request-Id, makes one otherwise, echoes it on every answer and logs every line of the request with it', async () => {
    server = await startServerProcess({ DATABASE_URL: database.url, LOG_LEVEL: 'info' });
    const { baseUrl } = server;
    const code = await createLink(baseUrl);
    const sent = (path: string, id?: string, init: RequestInit = {}) =>
      fetch(`${baseUrl}${path}`, {
        redirect: 'manual',
        ...init,
        headers: id === undefined ? {} : { 'x-request-id': id },
      });

    const kept = await sent('/api/links', 'trace-0001', { method: 'POST', body: '{"url": 5}', headers: {} });
    const keptPost = await fetch(`${baseUrl}/api/links`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'proxy:7f3a/2' },
      body: '{"url": 5}',
    });
    const longest = 'x'.repeat(128);
    const atLimit = await sent('/no/such/path', longest);
    const tooLong = await sent('/no/such/path', 'y'.repeat(129));
    const withSpace = await sent('/no/such/path', 'two words');
    const notAscii = await fetch(`${baseUrl}/no/such/path`, { headers: { 'x-request-id': 'caf\u00e9' } });
    const badUrl = await sent('/api/links/%E0%A4%A', 'bad-url-1');
    // Cached redirects are answered before Fastify: they echo (or make) the id as well.
    expect((await sent(`/${code}`)).status).toBe(302);
    const fastKept = await sent(`/${code}`, 'fast-path-1');
    const fastMade = await sent(`/${code}`);
    const head = await sent(`/${code}`, 'head-1', { method: 'HEAD' });
    await server.stop();

    expect(kept.headers.get('x-request-id')).toBe('trace-0001');
    expect(keptPost.status).toBe(400);
    expect(keptPost.headers.get('x-request-id')).toBe('proxy:7f3a/2');
    expect(atLimit.headers.get('x-request-id')).toBe(longest);
    for (const response of [tooLong, withSpace, notAscii]) {
      expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect(badUrl.status).toBeGreaterThanOrEqual(400);
    expect(badUrl.headers.get('x-request-id')).toBe('bad-url-1');
    expect(fastKept.headers.get('x-request-id')).toBe('fast-path-1');
    expect(fastMade.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(fastMade.headers.get('x-request-id')).not.toBe(fastKept.headers.get('x-request-id'));
    expect(head.headers.get('x-request-id')).toBe('head-1');

    // Every line of a request carries the id its answer carried, and nothing else does.
    const lines = server
      .output()
      .stdout.split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Partial<RequestLine>)
      .filter((line) => line.req !== undefined);
    const answered = [keptPost, atLimit, tooLong, withSpace, notAscii].map((r) => r.headers.get('x-request-id'));
    for (const id of answered) expect(lines.filter((line) => line.req?.id === id)).toHaveLength(1);
    for (const line of lines) expect(line.req?.id).toEqual(expect.any(String));
  });

  it('logs every redirect at debug', async () => {
    server = await startServerProcess({ DATABASE_URL: database.url, LOG_LEVEL: 'debug' });
    const code = await createLink(server.baseUrl);
    for (let i = 0; i < 3; i++) {
      const headers = { 'x-request-id': `redirect-${i}` };
      expect((await fetch(`${server.baseUrl}/${code}`, { redirect: 'manual', headers })).status).toBe(302);
    }
    await server.stop();

    const redirects = requestLines(server.output().stdout).filter((line) => line.req.url === `/${code}`);
    expect(redirects.map((line) => [line.level, line.res.statusCode, line.req.id])).toEqual([
      [20, 302, 'redirect-0'],
      [20, 302, 'redirect-1'],
      [20, 302, 'redirect-2'],
    ]);
  });
});

describe('request pipeline', () => {
  // Once any AsyncLocalStorage has run, Node 20 calls async hooks for every promise and async
  // resource of the process: measured, 11 to 23 % more CPU per link creation (see
  // src/logging/logger.options.ts). A dependency that starts using one shows up here.
  it('runs no request inside an AsyncLocalStorage', async () => {
    const testApp = await startTestApp();
    const run = jest.spyOn(AsyncLocalStorage.prototype, 'run');
    const enterWith = jest.spyOn(AsyncLocalStorage.prototype, 'enterWith');
    try {
      const created = await testApp.request('/api/links', { method: 'POST', json: { url: 'https://example.com/als' } });
      expect(created.status).toBe(201);
      const { code } = (await created.json()) as { code: string };
      expect((await testApp.request(`/${code}`)).status).toBe(302);
      expect((await testApp.request(`/api/s?url=${encodeURIComponent('https://example.com/als2')}`)).status).toBe(200);
      expect((await testApp.request('/api/links', { headers: { authorization: 'Bearer sl_unknown' } })).status).toBe(
        401,
      );
      expect((await testApp.request('/api/links', { method: 'POST', json: { url: 'not a url' } })).status).toBe(400);

      expect(run).not.toHaveBeenCalled();
      expect(enterWith).not.toHaveBeenCalled();
    } finally {
      run.mockRestore();
      enterWith.mockRestore();
      await testApp.close();
    }
  });
});
