import { MemoryWindows, windowRecord } from './fixed-window.js';

describe('windowRecord', () => {
  it('is not blocked up to the limit and reports whole seconds left', () => {
    expect(windowRecord(5, 1200, 5)).toEqual({ totalHits: 5, timeToExpire: 2, isBlocked: false, timeToBlockExpire: 0 });
  });

  it('blocks over the limit until the window resets', () => {
    expect(windowRecord(6, 59_001, 5)).toEqual({
      totalHits: 6,
      timeToExpire: 60,
      isBlocked: true,
      timeToBlockExpire: 60,
    });
  });

  it('never reports zero seconds (Retry-After: 0 would invite an immediate retry)', () => {
    expect(windowRecord(6, 0, 5).timeToBlockExpire).toBe(1);
  });
});

describe('MemoryWindows', () => {
  it('counts hits per key within the window', () => {
    const sut = new MemoryWindows();

    expect(sut.hit('a', 1000, 0)).toEqual({ hits: 1, msLeft: 1000 });
    expect(sut.hit('a', 1000, 400)).toEqual({ hits: 2, msLeft: 600 });
    expect(sut.hit('b', 1000, 400)).toEqual({ hits: 1, msLeft: 1000 });
  });

  it('starts a new window once the old one has ended', () => {
    const sut = new MemoryWindows();
    sut.hit('a', 1000, 0);
    sut.hit('a', 1000, 500);

    expect(sut.hit('a', 1000, 1000)).toEqual({ hits: 1, msLeft: 1000 });
  });

  it('forgets ended windows so memory follows the active callers', () => {
    const sut = new MemoryWindows();
    sut.hit('a', 1000, 0);
    sut.hit('b', 1000, 0);

    sut.hit('c', 1000, 5000);

    expect(sut.size).toBe(1);
  });
});
