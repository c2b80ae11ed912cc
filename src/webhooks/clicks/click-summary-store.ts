/** A link's clicks since its last summary, due to be summarised. */
export interface DueClickTally {
  code: string;
  clicks: number;
  bots: number;
  since: Date;
}

/** A code's clicks to add to its tally. */
export interface ClickTallyIncrement {
  code: string;
  clicks: number;
  bots: number;
}

/**
 * `webhook_click_tallies` for the `link.clicked` summaries, in plain SQL per database kind:
 * added to by each click flush (one statement), turned into outbox messages when due by one
 * instance at a time.
 */
export abstract class ClickSummaryStore {
  /**
   * Adds the clicks of links whose account has an enabled endpoint receiving `link.clicked`
   * (others are skipped by the statement itself); a link's first tally starts at `since` and is
   * due at `dueAt`.
   */
  abstract add(increments: ClickTallyIncrement[], since: Date, dueAt: Date): Promise<void>;

  /**
   * Takes the tallies due at `now` (one instance at a time: others skip them), stores a
   * `link.clicked` message with `body(tally)` for every enabled endpoint of the link's account
   * that receives it, and starts each link's next summary at `now`, due at `nextDueAt`: the
   * clicks summarised are subtracted (any added meanwhile wait for the next one); a tally due
   * with no clicks (idle for a whole interval) is deleted. One transaction; how many tallies
   * were due.
   */
  abstract emit(now: Date, nextDueAt: Date, body: (tally: DueClickTally) => string): Promise<number>;
}
