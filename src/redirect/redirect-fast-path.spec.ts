import { jest } from '@jest/globals';
import type { HttpAdapterHost } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from '../config/app-config.js';
import { LinkCache } from '../links/link-cache.js';
import type { ClickCounter } from './click-counter.js';
import { RedirectFastPath } from './redirect-fast-path.js';
import type { RedirectRepository } from './redirect.repository.js';
import { RedirectService } from './redirect.service.js';

type Hook = (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void;

function setup(logLevel = 'info') {
  const config = { logLevel, redirectCacheSize: 10 } as AppConfig;
  const cache = new LinkCache(config);
  const record = jest.fn<(code: string) => void>();
  const findTarget = jest.fn(() => Promise.resolve(null));
  const service = new RedirectService(
    cache,
    { findTarget } as unknown as RedirectRepository,
    { record } as unknown as ClickCounter,
  );
  let hook: Hook | undefined;
  const adapter = { setOnRequestHook: (installed: Hook) => (hook = installed) };
  const sut = new RedirectFastPath({ httpAdapter: adapter } as unknown as HttpAdapterHost, service, config);

  /** Runs a request through the installed hook; `answered` is what the reply was given. */
  const request = (method: string, routeUrl: string | undefined, code: string) => {
    const reply = {
      sent: undefined as undefined | { status: number; headers: Record<string, string> },
      status: 0,
      headers: {} as Record<string, string>,
      code(status: number) {
        this.status = status;
        return this;
      },
      header(name: string, value: string) {
        this.headers[name] = value;
        return this;
      },
      send() {
        this.sent = { status: this.status, headers: this.headers };
        return this;
      },
    };
    const done = jest.fn();
    hook?.(
      { method, routeOptions: { url: routeUrl }, params: { code } } as unknown as FastifyRequest,
      reply as unknown as FastifyReply,
      done,
    );
    return { answered: reply.sent, passedOn: done.mock.calls.length === 1 };
  };
  return { sut, cache, record, findTarget, request, installed: () => hook !== undefined };
}

describe('RedirectFastPath', () => {
  it('answers a cached code with the redirect and counts the GET, without the database', () => {
    const { sut, cache, record, findTarget, request } = setup();
    sut.onModuleInit();
    cache.setIfUnchanged('Ab3dE9x', 'https://example.com/', cache.generation());

    const { answered, passedOn } = request('GET', '/:code', 'Ab3dE9x');

    expect(passedOn).toBe(false);
    expect(answered).toEqual({
      status: 302,
      headers: { location: 'https://example.com/', 'cache-control': 'private, no-store' },
    });
    expect(record).toHaveBeenCalledWith('Ab3dE9x');
    expect(findTarget).not.toHaveBeenCalled();
  });

  it('answers HEAD for a cached code without counting it', () => {
    const { sut, cache, record, request } = setup();
    sut.onModuleInit();
    cache.setIfUnchanged('Ab3dE9x', 'https://example.com/', cache.generation());

    const { answered } = request('HEAD', '/:code', 'Ab3dE9x');

    expect(answered?.status).toBe(302);
    expect(record).not.toHaveBeenCalled();
  });

  it('passes uncached codes on to the controller', () => {
    const { sut, record, request } = setup();
    sut.onModuleInit();

    const { answered, passedOn } = request('GET', '/:code', 'Zz9Zz9Z');

    expect(passedOn).toBe(true);
    expect(answered).toBeUndefined();
    expect(record).not.toHaveBeenCalled();
  });

  it('passes on a deleted (invalidated) code', async () => {
    const { sut, cache, request } = setup();
    sut.onModuleInit();
    cache.setIfUnchanged('Ab3dE9x', 'https://example.com/', cache.generation());
    await cache.invalidate('Ab3dE9x');

    expect(request('GET', '/:code', 'Ab3dE9x').passedOn).toBe(true);
  });

  it('leaves every other route alone, even when its path looks like a cached code', () => {
    const { sut, cache, request } = setup();
    sut.onModuleInit();
    cache.setIfUnchanged('health', 'https://example.com/', cache.generation());

    expect(request('GET', '/health', 'health').passedOn).toBe(true);
    expect(request('GET', undefined, 'health').passedOn).toBe(true);
  });

  it.each(['debug', 'trace'])(
    'is not installed at LOG_LEVEL=%s, so every redirect reaches the request logger',
    (level) => {
      const { sut, installed } = setup(level);
      sut.onModuleInit();
      expect(installed()).toBe(false);
    },
  );
});
