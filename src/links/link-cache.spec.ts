import { jest } from '@jest/globals';
import type { AppConfig } from '../config/app-config.js';
import { LinkCache, type LinkInvalidationListener } from './link-cache.js';

const withSize = (redirectCacheSize: number, redirectCacheTtlSeconds = 0) =>
  ({ redirectCacheSize, redirectCacheTtlSeconds }) as AppConfig;

describe('LinkCache', () => {
  it('serves what a redirect stored', () => {
    const sut = new LinkCache(withSize(10));
    sut.setIfUnchanged('abc', 'https://example.com/', sut.generation());

    expect(sut.get('abc')).toBe('https://example.com/');
  });

  describe('with REDIRECT_CACHE_TTL_SECONDS', () => {
    beforeEach(() => jest.useFakeTimers({ now: Date.parse('2026-01-01T00:00:00Z') }));
    afterEach(() => jest.useRealTimers());

    it('serves an entry until it is TTL seconds old, then reads it again', () => {
      const sut = new LinkCache(withSize(10, 60));
      sut.setIfUnchanged('abc', 'https://example.com/old', sut.generation());

      jest.advanceTimersByTime(59_999);
      expect(sut.get('abc')).toBe('https://example.com/old');
      jest.advanceTimersByTime(1);
      expect(sut.get('abc')).toBeUndefined();

      sut.setIfUnchanged('abc', 'https://example.com/new', sut.generation());
      expect(sut.get('abc')).toBe('https://example.com/new');
    });

    it('counts the age from when the entry was read, not from when it was last served', () => {
      const sut = new LinkCache(withSize(10, 60));
      sut.setIfUnchanged('abc', 'https://example.com/', sut.generation());

      for (let second = 0; second < 59; second++) {
        jest.advanceTimersByTime(1000);
        expect(sut.get('abc')).toBe('https://example.com/');
      }
      jest.advanceTimersByTime(1000);

      expect(sut.get('abc')).toBeUndefined();
    });

    it('keeps entries until they are evicted when the TTL is 0', () => {
      const sut = new LinkCache(withSize(10, 0));
      sut.setIfUnchanged('abc', 'https://example.com/', sut.generation());

      jest.advanceTimersByTime(365 * 24 * 3600 * 1000);

      expect(sut.get('abc')).toBe('https://example.com/');
    });
  });

  it('forgets a code on invalidate', async () => {
    const sut = new LinkCache(withSize(10));
    sut.setIfUnchanged('abc', 'https://example.com/', sut.generation());

    await sut.invalidate('abc');

    expect(sut.get('abc')).toBeUndefined();
  });

  it('does not store a target read before an invalidation (a stale database read)', async () => {
    const sut = new LinkCache(withSize(10));
    const generation = sut.generation();
    // ...the redirect reads the old target from the database while a PUT lands...
    await sut.invalidate('abc');

    sut.setIfUnchanged('abc', 'https://old.example/', generation);

    expect(sut.get('abc')).toBeUndefined();
  });

  it('tells listeners about local invalidations, and not about evictLocal', async () => {
    const sut = new LinkCache(withSize(10));
    const listener = jest.fn<LinkInvalidationListener>();
    sut.onInvalidate(listener);

    await sut.invalidate('abc');
    await sut.invalidate('new', 'created');
    sut.evictLocal('def');

    expect(listener.mock.calls).toEqual([
      ['abc', 'changed'],
      ['new', 'created'],
    ]);
  });

  it('is bypassed while any road of invalidations is down, and starts empty when the last is back', () => {
    const sut = new LinkCache(withSize(10));
    const cached = () => {
      sut.setIfUnchanged('abc', 'https://example.com/', sut.generation());
      return sut.get('abc');
    };
    expect(cached()).toBe('https://example.com/');

    sut.suspend('redis');
    sut.suspend('database');
    expect(cached()).toBeUndefined();
    sut.resume('redis');
    expect(cached()).toBeUndefined();
    sut.resume('database');
    expect(sut.get('abc')).toBeUndefined();
    expect(cached()).toBe('https://example.com/');
  });

  it('evictLocal also blocks stale stores', () => {
    const sut = new LinkCache(withSize(10));
    const generation = sut.generation();
    sut.evictLocal('abc');

    sut.setIfUnchanged('abc', 'https://old.example/', generation);

    expect(sut.get('abc')).toBeUndefined();
  });

  it('waits for asynchronous listeners and survives failing ones', async () => {
    const sut = new LinkCache(withSize(10));
    let published = false;
    sut.onInvalidate(async () => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      published = true;
    });
    sut.onInvalidate(() => {
      throw new Error('redis down');
    });

    await expect(sut.invalidate('abc')).resolves.toBeUndefined();

    expect(published).toBe(true);
  });

  it('stops calling a listener once removed', async () => {
    const sut = new LinkCache(withSize(10));
    const listener = jest.fn<LinkInvalidationListener>();
    const remove = sut.onInvalidate(listener);
    remove();

    await sut.invalidate('abc');

    expect(listener).not.toHaveBeenCalled();
  });

  it('caches nothing with size 0', () => {
    const sut = new LinkCache(withSize(0));
    sut.setIfUnchanged('abc', 'https://example.com/', sut.generation());

    expect(sut.get('abc')).toBeUndefined();
  });
});
