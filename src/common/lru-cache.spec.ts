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

  it('keeps entries that are read often while many others pass through', () => {
    const sut = new LruCache<number, number>(100);
    for (let i = 100; i < 190; i++) sut.set(i, i);
    for (let hot = 0; hot < 10; hot++) sut.set(hot, hot);
    // 0..9 are read constantly while 1,000 new keys pass through.
    for (let i = 1000; i < 2000; i++) {
      sut.get(i % 10);
      sut.set(i, i);
    }

    for (let hot = 0; hot < 10; hot++) expect(sut.get(hot)).toBe(hot);
    expect(sut.size).toBe(100);
    expect(sut.get(1999)).toBe(1999);
    expect(sut.get(100)).toBeUndefined();
  });

  it('evicts an entry whose last read is older than capacity / 2 operations', () => {
    const sut = new LruCache<number, number>(10);
    for (let i = 0; i < 10; i++) sut.set(i, i);
    sut.get(0);
    // Six writes later (more than 10 / 2 operations), the read above is no protection from
    // entries written after it; the first writes are evicted in order.
    for (let i = 10; i < 21; i++) sut.set(i, i);

    expect(sut.get(0)).toBeUndefined();
    expect(sut.get(20)).toBe(20);
  });

  it.each([-1, 1.5, Number.NaN])('refuses the capacity %p', (capacity) => {
    expect(() => new LruCache(capacity)).toThrow(RangeError);
  });
});
