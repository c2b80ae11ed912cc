// How a long task on the SQLite background writer (e.g. the click fold, clicks/click-log-fold.ts)
// spreads its work over time, so that the writer's thread never takes a core for long at once.
import { setImmediate as yieldToEvents, setTimeout as sleep } from 'node:timers/promises';

/**
 * A task works in slices of about this long (ms), with a pause after each: link inserts and click
 * batches that reach the writer meanwhile wait at most about this long.
 */
export const TASK_SLICE_MS = 10;
/** The largest share of a core a paced task uses, however much it has to do. */
export const MAX_TASK_DUTY = 0.5;
/** The smallest: a small task given a long time still ends within 1 / MIN_TASK_DUTY times its work. */
export const MIN_TASK_DUTY = 0.05;

/**
 * The share of a core a task works at (its duty cycle): its expected work spread over `spreadMs`,
 * between MIN_TASK_DUTY and MAX_TASK_DUTY. Spread thin, a task takes a little CPU for longer
 * rather than a lot at once, which the event loop (sharing the machine's cores) feels as latency.
 * `expectedWorkMs`: undefined when not known yet (the first run); `spreadMs` 0: unpaced (at
 * shutdown, or when the work is wanted right now).
 */
export function taskDuty(expectedWorkMs: number | undefined, spreadMs: number): number {
  if (spreadMs <= 0) return 1;
  if (expectedWorkMs === undefined) return MAX_TASK_DUTY;
  return Math.min(MAX_TASK_DUTY, Math.max(MIN_TASK_DUTY, expectedWorkMs / spreadMs));
}

/**
 * Paces a task at a duty cycle: `slice()` is called between units of work and, once the current
 * slice has run TASK_SLICE_MS, pauses so that working takes `duty` of the time. At duty 1 it only
 * lets the thread's queued messages in. `workMs` adds up the time spent working.
 */
export class TaskPacer {
  workMs = 0;
  #sliceStarted = performance.now();

  constructor(public duty: number) {}

  async slice(): Promise<void> {
    const ran = performance.now() - this.#sliceStarted;
    if (ran < TASK_SLICE_MS) return;
    this.workMs += ran;
    const pauseMs = (ran * (1 - this.duty)) / this.duty;
    if (pauseMs > 0) await sleep(pauseMs);
    else await yieldToEvents();
    this.#sliceStarted = performance.now();
  }

  /** The time worked, once the task is done. */
  finish(): number {
    this.workMs += performance.now() - this.#sliceStarted;
    this.#sliceStarted = performance.now();
    return this.workMs;
  }
}
