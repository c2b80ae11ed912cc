import type { ClickTally } from './click-tally.js';

/**
 * Where the click counter's flushes go: one implementation per database kind, chosen once
 * (ClicksModule). Every flush writes the all-time count (`links.clicks`) and the daily rows
 * together, so the two never disagree.
 */
export abstract class ClickSink {
  /** Before the server listens (SQLite: what a crash or stop left in the click log counts). */
  abstract start(): Promise<void>;

  /**
   * Writes one flush. Resolves with what could not be written (empty when all was), which the
   * counter keeps for the next flush; never rejects.
   */
  abstract write(batch: ClickTally): Promise<ClickTally>;

  /** After each flush (SQLite: folds the click log when due). Never rejects. */
  abstract afterFlush(): Promise<void>;

  /** After the last flush at shutdown (SQLite: folds everything logged). */
  abstract stop(): Promise<void>;
}
