import { jest } from '@jest/globals';
import type { AppConfig } from '../config/app-config.js';
import { LinkCache, type LinkInvalidationListener } from './link-cache.js';

const withSize = (redirectCacheSize: number) => ({ redirectCacheSize }) as AppConfig;

describe('LinkCache', () => {
  it('serves what a redirect stored', () => {
    const sut = new LinkCache(withSize(10));
    sut.setIfUnchanged('abc', 'https://example.com/', sut.generation());

    expect(sut.get('abc')).toBe('https://example.com/');
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
    sut.evictLocal('def');

    expect(listener).toHaveBeenCalledTimes(1);
    expect(listener).toHaveBeenCalledWith('abc');
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
