// How a long task on the SQLite background writer (the click fold, see
// clicks/click-log-fold.ts) spreads its work over time.
import { setImmediate as yieldToEvents, setTimeout as sleep } from 'node:timers/promises';

/**
 * A fold works in slices of about this long (ms), with a pause after each: link inserts and click
 * batches that reach the writer meanwhile wait at most about this long.
 */
export const FOLD_SLICE_MS = 10;
/** The largest share of a core a paced fold uses, however much it has to do. */
export const MAX_FOLD_DUTY = 0.5;
/** The smallest: a small fold given a long time still ends within 1 / MIN_FOLD_DUTY times its work. */
export const MIN_FOLD_DUTY = 0.05;

/**
 * The share of a core a fold works at (its duty cycle): its expected work spread over `spreadMs`,
 * between MIN_FOLD_DUTY and MAX_FOLD_DUTY. Spread thin, a fold takes a little CPU for longer
 * rather than a lot at once, which the event loop (sharing the machine's cores) feels as latency.
 * `expectedWorkMs`: undefined when not known yet (the first fold); `spreadMs` 0: unpaced (at
 * shutdown, or when asked to fold right now).
 */
export function foldDuty(expectedWorkMs: number | undefined, spreadMs: number): number {
  if (spreadMs <= 0) return 1;
  if (expectedWorkMs === undefined) return MAX_FOLD_DUTY;
  return Math.min(MAX_FOLD_DUTY, Math.max(MIN_FOLD_DUTY, expectedWorkMs / spreadMs));
}

/**
 * Paces a fold at a duty cycle: `slice()` is called between units of work and, once the current
 * slice has run FOLD_SLICE_MS, pauses so that working takes `duty` of the time. At duty 1 it only
 * lets the thread's queued messages in. `workMs` adds up the time spent working.
 */
export class FoldPacer {
  workMs = 0;
  #sliceStarted = performance.now();

  constructor(public duty: number) {}

  async slice(): Promise<void> {
    const ran = performance.now() - this.#sliceStarted;
    if (ran < FOLD_SLICE_MS) return;
    this.workMs += ran;
    const pauseMs = (ran * (1 - this.duty)) / this.duty;
    if (pauseMs > 0) await sleep(pauseMs);
    else await yieldToEvents();
    this.#sliceStarted = performance.now();
  }

  /** The time worked, once the fold is done. */
  finish(): number {
    this.workMs += performance.now() - this.#sliceStarted;
    this.#sliceStarted = performance.now();
    return this.workMs;
  }
}
