import { jest } from '@jest/globals';
import type { AppConfig } from '../config/app-config.js';
import { ClickCounter, CLICK_FLUSH_BATCH_SIZE } from './click-counter.js';
import type { RedirectRepository } from './redirect.repository.js';

type Written = Array<readonly [string, number]>;

function setup() {
  const written: Written[] = [];
  const addClicks = jest.fn((counts: Written) => {
    written.push([...counts]);
    return Promise.resolve();
  });
  const repository = { addClicks } as unknown as RedirectRepository;
  const sut = new ClickCounter(repository, { clickFlushIntervalMs: 1000 } as AppConfig);
  const totals = () => {
    const sum = new Map<string, number>();
    for (const [code, clicks] of written.flat()) sum.set(code, (sum.get(code) ?? 0) + clicks);
    return Object.fromEntries(sum);
  };
  return { sut, addClicks, written, totals };
}

describe('ClickCounter', () => {
  it('writes one aggregated count per code', async () => {
    const { sut, addClicks, written } = setup();
    sut.record('a');
    sut.record('a');
    sut.record('b');

    await sut.flush();

    expect(addClicks).toHaveBeenCalledTimes(1);
    expect(written[0]).toEqual([
      ['a', 2],
      ['b', 1],
    ]);
    expect(sut.pendingClicks('a')).toBe(0);
  });

  it('writes nothing when nothing was counted', async () => {
    const { sut, addClicks } = setup();

    await sut.flush();

    expect(addClicks).not.toHaveBeenCalled();
  });

  it('keeps the counts of a failed flush for the next one', async () => {
    const { sut, addClicks, totals } = setup();
    sut.record('a');
    sut.record('a');
    addClicks.mockRejectedValueOnce(new Error('database is down'));

    await expect(sut.flush()).resolves.toBeUndefined();
    expect(sut.pendingClicks('a')).toBe(2);

    sut.record('a');
    await sut.flush();

    expect(totals()).toEqual({ a: 3 });
    expect(sut.pendingClicks('a')).toBe(0);
  });

  it('retries only the chunks that were not written', async () => {
    const { sut, addClicks, written, totals } = setup();
    const codes = Array.from({ length: CLICK_FLUSH_BATCH_SIZE + 10 }, (_, i) => `code${i}`);
    for (const code of codes) sut.record(code);
    // The first chunk is written, the second fails.
    let calls = 0;
    addClicks.mockImplementation((counts: Written) => {
      if (++calls === 2) return Promise.reject(new Error('lost connection'));
      written.push([...counts]);
      return Promise.resolve();
    });

    await sut.flush();

    expect(sut.pendingClicks(codes[0])).toBe(0);
    expect(sut.pendingClicks(codes[CLICK_FLUSH_BATCH_SIZE])).toBe(1);
    await sut.flush();
    expect(Object.keys(totals())).toHaveLength(codes.length);
    expect(Object.values(totals()).every((clicks) => clicks === 1)).toBe(true);
  });

  it('counts clicks that arrive during a flush in the next one', async () => {
    const { sut, addClicks, totals } = setup();
    let release!: () => void;
    addClicks.mockImplementationOnce(
      async () =>
        new Promise<void>((resolve) => {
          release = resolve;
        }),
    );
    sut.record('a');
    const first = sut.flush();
    await Promise.resolve();
    sut.record('a');
    const second = sut.flush();
    release();

    await Promise.all([first, second]);

    // The first write was swallowed by the mock; the second carries only the new click.
    expect(addClicks).toHaveBeenCalledTimes(2);
    expect(totals()).toEqual({ a: 1 });
  });

  it('flushes on application shutdown and stops its timer', async () => {
    jest.useFakeTimers();
    try {
      const { sut, addClicks, totals } = setup();
      sut.onApplicationBootstrap();
      sut.record('a');

      await sut.onApplicationShutdown();

      expect(totals()).toEqual({ a: 1 });
      sut.record('b');
      jest.advanceTimersByTime(5000);
      expect(addClicks).toHaveBeenCalledTimes(1);
    } finally {
      jest.useRealTimers();
    }
  });

  it('flushes on its interval', async () => {
    jest.useFakeTimers();
    try {
      const { sut, addClicks } = setup();
      sut.onApplicationBootstrap();
      sut.record('a');

      jest.advanceTimersByTime(1000);
      await Promise.resolve();

      expect(addClicks).toHaveBeenCalledTimes(1);
      await sut.onApplicationShutdown();
    } finally {
      jest.useRealTimers();
    }
  });
});
