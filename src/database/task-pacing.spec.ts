import { TASK_SLICE_MS, TaskPacer, MAX_TASK_DUTY, MIN_TASK_DUTY, taskDuty } from './task-pacing.js';

describe('taskDuty', () => {
  it('spreads the expected work over the time given, between the minimum and maximum share of a core', () => {
    expect(taskDuty(1_000, 10_000)).toBeCloseTo(0.1);
    expect(taskDuty(10_000, 10_000)).toBe(MAX_TASK_DUTY);
    expect(taskDuty(1, 60_000)).toBe(MIN_TASK_DUTY);
  });

  it('works at the maximum share while the work is unknown, and unpaced when there is no time to spread over', () => {
    expect(taskDuty(undefined, 10_000)).toBe(MAX_TASK_DUTY);
    expect(taskDuty(1_000, 0)).toBe(1);
    expect(taskDuty(undefined, 0)).toBe(1);
  });
});

describe('TaskPacer', () => {
  /** Keeps the thread busy for `ms`, as a slice of task work would. */
  const work = (ms: number) => {
    const until = performance.now() + ms;
    while (performance.now() < until);
  };

  /** Runs `slices` slices of work through a pacer; returns the wall time and the time worked. */
  async function run(duty: number, slices: number) {
    const pacer = new TaskPacer(duty);
    const started = performance.now();
    for (let i = 0; i < slices; i++) {
      work(TASK_SLICE_MS);
      await pacer.slice();
    }
    return { wallMs: performance.now() - started, workMs: pacer.finish() };
  }

  it('pauses after each slice so that working takes its duty share of the time', async () => {
    const { wallMs, workMs } = await run(0.25, 10);

    expect(workMs).toBeGreaterThanOrEqual(10 * TASK_SLICE_MS);
    // Three times as long paused as worked (timers fire late, never early).
    expect(wallMs).toBeGreaterThanOrEqual(workMs * 4 * 0.95);
  });

  it('only lets queued events in at duty 1, and goes on at once after a slice shorter than TASK_SLICE_MS', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    try {
      // Each slice's wait on its own: at duty 1 a turn of the event loop, never a pause of its
      // slice's length. The median, not the sum: a loaded machine (CI) deschedules the process
      // now and then for longer than a slice, which the wall time of the whole run counted.
      const pacer = new TaskPacer(1);
      const waits: number[] = [];
      for (let i = 0; i < 10; i++) {
        work(TASK_SLICE_MS);
        const started = performance.now();
        await pacer.slice();
        waits.push(performance.now() - started);
      }
      waits.sort((a, b) => a - b);
      expect(waits[5]).toBeLessThan(TASK_SLICE_MS / 2);
      // Events queued meanwhile ran between the slices.
      expect(ticks).toBeGreaterThan(0);
    } finally {
      clearInterval(timer);
    }

    const pacer = new TaskPacer(0.01);
    const started = performance.now();
    await pacer.slice();
    expect(performance.now() - started).toBeLessThan(TASK_SLICE_MS);
  });

  it('goes on unpaced once its duty is raised to 1 (a task hurried at shutdown)', async () => {
    const pacer = new TaskPacer(0.05);
    pacer.duty = 1;
    const started = performance.now();
    for (let i = 0; i < 5; i++) {
      work(TASK_SLICE_MS);
      await pacer.slice();
    }
    // Paced at 0.05, each slice would be followed by a pause of 19 slices (190 ms): less than one
    // such pause in all says none was taken, however loaded the machine (which delays the rest).
    expect(performance.now() - started).toBeLessThan(5 * TASK_SLICE_MS + 19 * TASK_SLICE_MS);
  });
});
