import type { AppConfig } from '../config/app-config.js';
import { ShutdownDrain } from './shutdown-drain.js';

describe('ShutdownDrain', () => {
  const drainFor = (shutdownDelayMs: number) => new ShutdownDrain({ shutdownDelayMs } as AppConfig);

  async function timed(run: () => Promise<void>): Promise<number> {
    const started = performance.now();
    await run();
    return performance.now() - started;
  }

  it('is not draining until the shutdown starts', () => {
    expect(drainFor(200).draining).toBe(false);
  });

  it('on a signal, drains at once and holds the shutdown for SHUTDOWN_DELAY_MS', async () => {
    const sut = drainFor(200);

    const holding = sut.beforeApplicationShutdown('SIGTERM');
    expect(sut.draining).toBe(true);
    expect(await timed(() => holding)).toBeGreaterThanOrEqual(150);
  });

  it('does not wait when the delay is 0', async () => {
    const sut = drainFor(0);

    expect(await timed(() => sut.beforeApplicationShutdown('SIGTERM'))).toBeLessThan(100);
    expect(sut.draining).toBe(true);
  });

  it('does not wait on a close from code (no signal), whatever the delay', async () => {
    const sut = drainFor(60_000);

    expect(await timed(() => sut.beforeApplicationShutdown())).toBeLessThan(100);
    expect(sut.draining).toBe(true);
  });
});
