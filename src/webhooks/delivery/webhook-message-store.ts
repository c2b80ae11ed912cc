/** A message an instance has claimed for one attempt, with what sending it needs. */
export interface ClaimedMessage {
  id: string;
  messageId: string;
  endpointId: string;
  accountId: string;
  payload: string;
  /** Attempts made before this one. */
  attempts: number;
  url: string;
  secret: string;
}

/** What one attempt came to, as it is recorded. */
export interface AttemptRecord {
  id: string;
  endpointId: string;
  at: Date;
  delivered: boolean;
  /** The answer's HTTP status; null when there was none. */
  responseStatus: number | null;
  /** When to try again; null: no more attempts (delivered, or the last retry failed). */
  nextAttemptAt: Date | null;
  /** An endpoint failing since this instant or earlier, with nothing delivered since, is disabled. */
  disableIfFailingSince: Date;
}

/**
 * What the attempts of one batch did to one endpoint, as recording them one after the other
 * would have: the last delivery and the last failure, and the failures since the last delivery
 * (those that decide whether it is failing, and for how long).
 */
export interface EndpointOutcome {
  endpointId: string;
  /** The last delivery's time, when any of the batch's attempts delivered. */
  lastDeliveredAt: Date | null;
  /** The last failure's time, when any failed. */
  lastFailedAt: Date | null;
  /**
   * The first failure after the last delivery (after the batch's start when none delivered):
   * where the endpoint's `failing_since` starts if it was not failing already.
   */
  failingFrom: Date | null;
  /** Disabled if failing since this instant or earlier (the latest of those failures' cut-offs). */
  disableIfFailingSince: Date | null;
}

/**
 * Folds a batch of attempts into one outcome per endpoint, so that the batch updates each
 * endpoint once (one row per endpoint, whatever the number of its attempts). Attempts are taken
 * in the order they ended.
 */
export function endpointOutcomes(attempts: readonly AttemptRecord[]): EndpointOutcome[] {
  const outcomes = new Map<string, EndpointOutcome>();
  for (const attempt of [...attempts].sort((a, b) => a.at.getTime() - b.at.getTime())) {
    let outcome = outcomes.get(attempt.endpointId);
    if (!outcome) {
      outcome = {
        endpointId: attempt.endpointId,
        lastDeliveredAt: null,
        lastFailedAt: null,
        failingFrom: null,
        disableIfFailingSince: null,
      };
      outcomes.set(attempt.endpointId, outcome);
    }
    if (attempt.delivered) {
      outcome.lastDeliveredAt = attempt.at;
      outcome.failingFrom = null;
      outcome.disableIfFailingSince = null;
    } else {
      outcome.lastFailedAt = attempt.at;
      outcome.failingFrom ??= attempt.at;
      outcome.disableIfFailingSince = attempt.disableIfFailingSince;
    }
  }
  return [...outcomes.values()];
}

/** Messages one claim takes at most. */
export const MAX_CLAIM = 128;

/** What a claim takes. */
export interface ClaimRequest {
  now: Date;
  /** Messages to claim at most (at most MAX_CLAIM). */
  limit: number;
  /** Messages of one endpoint to claim at most. */
  perEndpoint: number;
  /** Endpoints with enough attempts under way on this instance: none of theirs. */
  busyEndpoints: string[];
  /** The lease: no other instance takes the messages before this instant. */
  claimedUntil: Date;
}

/**
 * The outbox's statements for the delivery worker, in plain SQL for one database kind each
 * (claiming needs `FOR UPDATE SKIP LOCKED` on PostgreSQL and the background writer on SQLite,
 * which Prisma has no words for). Chosen once by `webhookMessageStoreProvider`.
 */
export abstract class WebhookMessageStore {
  /**
   * Claims due messages of enabled endpoints, oldest due first, for one attempt each: each is
   * leased to this instance until `claimedUntil`, so that no other instance attempts it meanwhile
   * (one that dies mid-attempt leaves it to be claimed again once the lease runs out).
   */
  abstract claim(request: ClaimRequest): Promise<ClaimedMessage[]>;

  /**
   * Records attempts, in one transaction: each message delivered, rescheduled or failed, its
   * lease ended; its endpoint's last delivery or failure (`endpointOutcomes`); an endpoint
   * failing since `disableIfFailingSince` with nothing delivered since is disabled, and its
   * pending messages failed. Resolves with the endpoints of the batch that are gone (deleted
   * meanwhile) or disabled: none of their messages is to be attempted any more.
   */
  abstract record(attempts: AttemptRecord[]): Promise<Set<string>>;

  /** Ends the leases of messages not attempted after all (at shutdown): any instance takes them again. */
  abstract release(ids: string[]): Promise<void>;

  /** Deletes delivered and failed messages created before `before`; how many. */
  abstract prune(before: Date): Promise<number>;
}
