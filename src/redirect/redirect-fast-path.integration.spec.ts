import { jest } from '@jest/globals';
import type { HttpAdapterHost } from '@nestjs/core';
import type { AddressInfo } from 'node:net';
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { EarlyRequests } from '../common/http/early-requests.js';
import type { AppConfig } from '../config/app-config.js';
import { LinkCache } from '../links/link-cache.js';
import type { ClickCounter } from '../clicks/click-counter.js';
import { RedirectFastPath } from './redirect-fast-path.js';
import { ServiceCounters } from '../metrics/service-counters.js';
import { RedirectService } from './redirect.service.js';

const FASTIFY_OPTIONS = { keepAliveTimeout: 72_000, requestTimeout: 0, connectionTimeout: 0 };

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

/**
 * A real HTTP server made by `EarlyRequests.serverFactory`, with a stand-in for Fastify that
 * answers 299 "fastify" to whatever reaches it.
 */
async function setup(logLevel = 'info') {
  const config = { logLevel, redirectCacheSize: 10, redirectCacheTtlSeconds: 300 } as AppConfig;
  const cache = new LinkCache(config);
  const record = jest.fn<(code: string, referer?: string) => void>();
  const service = new RedirectService(
    cache,
    { findTarget: () => Promise.resolve(null) },
    { record } as unknown as ClickCounter,
    new ServiceCounters(),
  );
  const fastify = jest.fn((_request: IncomingMessage, response: ServerResponse) => {
    response.writeHead(299).end('fastify');
  });
  const server = new EarlyRequests().serverFactory(fastify, FASTIFY_OPTIONS);
  const adapterHost = { httpAdapter: { getHttpServer: () => server } } as unknown as HttpAdapterHost;
  const sut = new RedirectFastPath(adapterHost, service, config);
  sut.onModuleInit();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  const send = (method: string, path: string) =>
    new Promise<Answer>((resolve, reject) => {
      const outgoing = httpRequest({ host: '127.0.0.1', port, method, path, agent: false }, (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body }));
      });
      outgoing.on('error', reject);
      outgoing.end();
    });
  const cacheTarget = (code: string, target: string) => cache.setIfUnchanged(code, target, cache.generation());
  return { sut, server, cache, cacheTarget, record, fastify, send };
}

describe('RedirectFastPath', () => {
  let current: Awaited<ReturnType<typeof setup>> | undefined;
  const start = async (logLevel?: string) => (current = await setup(logLevel));
  afterEach(async () => {
    await new Promise((resolve) => current?.server.close(resolve));
    current = undefined;
  });

  it('answers a cached code with the redirect and counts the GET, before Fastify', async () => {
    const { cacheTarget, record, fastify, send } = await start();
    cacheTarget('Ab3dE9x', 'https://example.com/');

    const answer = await send('GET', '/Ab3dE9x');

    expect(answer).toMatchObject({
      status: 302,
      body: '',
      headers: { location: 'https://example.com/', 'cache-control': 'private, no-store', 'content-length': '0' },
    });
    expect(record.mock.calls).toEqual([['Ab3dE9x', undefined, undefined, undefined, '127.0.0.1']]);
    expect(fastify).not.toHaveBeenCalled();
  });

  it('answers HEAD for a cached code without counting it', async () => {
    const { cacheTarget, record, send } = await start();
    cacheTarget('Ab3dE9x', 'https://example.com/');

    const answer = await send('HEAD', '/Ab3dE9x');

    expect(answer.status).toBe(302);
    expect(answer.headers.location).toBe('https://example.com/');
    expect(record).not.toHaveBeenCalled();
  });

  it('ignores the query string, as the route does', async () => {
    const { cacheTarget, record, send } = await start();
    cacheTarget('Ab3dE9x', 'https://example.com/');

    const answer = await send('GET', '/Ab3dE9x?utm_source=mail&x=%20');

    expect(answer.status).toBe(302);
    expect(answer.headers.location).toBe('https://example.com/');
    expect(record.mock.calls).toEqual([['Ab3dE9x', undefined, undefined, undefined, '127.0.0.1']]);
  });

  it('passes uncached and invalidated codes on to Fastify', async () => {
    const { cache, cacheTarget, record, fastify, send } = await start();
    cacheTarget('Ab3dE9x', 'https://example.com/');
    await cache.invalidate('Ab3dE9x');

    expect((await send('GET', '/Ab3dE9x')).body).toBe('fastify');
    expect((await send('GET', '/Zz9Zz9Z')).body).toBe('fastify');
    expect(fastify).toHaveBeenCalledTimes(2);
    expect(record).not.toHaveBeenCalled();
  });

  it.each([
    ['another method', 'POST', '/Ab3dE9x'],
    ['a trailing slash', 'GET', '/Ab3dE9x/'],
    ['a longer path', 'GET', '/Ab3dE9x/more'],
    ['a %-encoded path', 'GET', '/%41b3dE9x'],
    ['an absolute-form URL', 'GET', 'http://sl.test/Ab3dE9x'],
    ['the root', 'GET', '/'],
    ['an empty path before the query', 'GET', '/?Ab3dE9x'],
  ])('leaves %s to Fastify, even when it names a cached code', async (_label, method, path) => {
    const { cacheTarget, record, fastify, send } = await start();
    cacheTarget('Ab3dE9x', 'https://example.com/');

    const answer = await send(method, path);

    expect(answer).toMatchObject({ status: 299, body: 'fastify' });
    expect(fastify).toHaveBeenCalledTimes(1);
    expect(record).not.toHaveBeenCalled();
  });

  it('leaves a target Node refuses as a header value to Fastify, counting nothing', async () => {
    const { cacheTarget, record, fastify, send } = await start();
    cacheTarget('Ab3dE9x', 'https://example.com/\r\nset-cookie: x=1');

    const answer = await send('GET', '/Ab3dE9x');

    expect(answer).toMatchObject({ status: 299, body: 'fastify' });
    expect(answer.headers['set-cookie']).toBeUndefined();
    expect(fastify).toHaveBeenCalledTimes(1);
    expect(record).not.toHaveBeenCalled();
  });

  it('leaves everything to Fastify once the server stops listening (shutdown)', async () => {
    const { server, cacheTarget, sut } = await start();
    cacheTarget('Ab3dE9x', 'https://example.com/');
    await new Promise((resolve) => server.close(resolve));

    const response = { writeHead: jest.fn(), end: jest.fn() };
    const answered = sut.tryAnswer(
      { method: 'GET', url: '/Ab3dE9x' } as IncomingMessage,
      response as unknown as ServerResponse,
    );

    expect(answered).toBe(false);
    expect(response.writeHead).not.toHaveBeenCalled();
  });

  it.each(['debug', 'trace'])(
    'is not installed at LOG_LEVEL=%s, so every redirect reaches the request logger',
    async (level) => {
      const { cacheTarget, fastify, send } = await start(level);
      cacheTarget('Ab3dE9x', 'https://example.com/');

      expect((await send('GET', '/Ab3dE9x')).body).toBe('fastify');
      expect(fastify).toHaveBeenCalledTimes(1);
    },
  );

  it('keeps the timeouts Fastify would set on its own server', async () => {
    const { server } = await start();
    expect(server.keepAliveTimeout).toBe(72_000);
  });
});
