import { LruCache } from './lru-cache.js';

describe('LruCache', () => {
  it('returns what was stored', () => {
    const sut = new LruCache<string, string>(3);
    sut.set('a', '1');

    expect(sut.get('a')).toBe('1');
    expect(sut.get('b')).toBeUndefined();
  });

  it('evicts the least recently stored entry beyond its capacity', () => {
    const sut = new LruCache<string, number>(2);
    sut.set('a', 1);
    sut.set('b', 2);
    sut.set('c', 3);

    expect(sut.get('a')).toBeUndefined();
    expect(sut.get('b')).toBe(2);
    expect(sut.get('c')).toBe(3);
    expect(sut.size).toBe(2);
  });

  it('counts a read as a use', () => {
    const sut = new LruCache<string, number>(2);
    sut.set('a', 1);
    sut.set('b', 2);
    sut.get('a');
    sut.set('c', 3);

    expect(sut.get('a')).toBe(1);
    expect(sut.get('b')).toBeUndefined();
  });

  it('replaces a value without growing and refreshes its position', () => {
    const sut = new LruCache<string, number>(2);
    sut.set('a', 1);
    sut.set('b', 2);
    sut.set('a', 10);
    sut.set('c', 3);

    expect(sut.size).toBe(2);
    expect(sut.get('a')).toBe(10);
    expect(sut.get('b')).toBeUndefined();
  });

  it('deletes and clears', () => {
    const sut = new LruCache<string, number>(3);
    sut.set('a', 1);
    sut.set('b', 2);

    expect(sut.delete('a')).toBe(true);
    expect(sut.delete('a')).toBe(false);
    expect(sut.get('a')).toBeUndefined();
    sut.clear();
    expect(sut.size).toBe(0);
  });

  it('stores nothing with capacity 0', () => {
    const sut = new LruCache<string, number>(0);
    sut.set('a', 1);

    expect(sut.get('a')).toBeUndefined();
    expect(sut.size).toBe(0);
  });

  it('never holds more than its capacity', () => {
    const sut = new LruCache<number, number>(100);
    for (let i = 0; i < 10_000; i++) sut.set(i, i);

    expect(sut.size).toBe(100);
    expect(sut.get(9_999)).toBe(9_999);
    expect(sut.get(9_899)).toBeUndefined();
  });

  it.each([-1, 1.5, Number.NaN])('refuses the capacity %p', (capacity) => {
    expect(() => new LruCache(capacity)).toThrow(RangeError);
  });
});
