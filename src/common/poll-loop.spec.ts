import { PollLoop } from './poll-loop.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('PollLoop', () => {
  it('waits the interval between rounds, and a wake starts the next round at once', async () => {
    const rounds: number[] = [];
    const loop = new PollLoop(() => Promise.resolve(rounds.push(Date.now()) < 0), 60_000);
    loop.start();
    await sleep(50);
    expect(rounds).toHaveLength(1);
    loop.wake();
    await sleep(20);
    expect(rounds).toHaveLength(2);
    await loop.stop();
    expect(loop.running).toBe(false);
  });

  it('goes again at once while a round says so, then waits', async () => {
    let left = 3;
    let rounds = 0;
    const loop = new PollLoop(() => Promise.resolve(++rounds > 0 && --left > 0), 60_000);
    loop.start();
    await sleep(50);
    expect(rounds).toBe(3);
    await loop.stop();
  });

  it('does not lose a wake that comes during a round', async () => {
    let rounds = 0;
    let release!: () => void;
    const loop = new PollLoop(async () => {
      rounds++;
      if (rounds === 1) await new Promise<void>((resolve) => (release = resolve));
      return false;
    }, 60_000);
    loop.start();
    await sleep(10);
    loop.wake();
    release();
    await sleep(20);
    expect(rounds).toBe(2);
    await loop.stop();
  });

  it('stops after the round under way, starting no other', async () => {
    let rounds = 0;
    const loop = new PollLoop(async () => {
      rounds++;
      await sleep(30);
      return true;
    }, 60_000);
    loop.start();
    await sleep(10);
    await loop.stop();
    const after = rounds;
    await sleep(50);
    expect(rounds).toBe(after);
  });
});
