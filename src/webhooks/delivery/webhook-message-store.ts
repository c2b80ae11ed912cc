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

/** What a claim takes. */
export interface ClaimRequest {
  now: Date;
  /** Messages to claim at most. */
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
   * Records attempts, in order: each message delivered, rescheduled or failed, its lease ended;
   * its endpoint's last delivery or failure; an endpoint failing since `disableIfFailingSince`
   * with nothing delivered since is disabled, and its pending messages failed.
   */
  abstract record(attempts: AttemptRecord[]): Promise<void>;

  /** Ends the leases of messages not attempted after all (at shutdown): any instance takes them again. */
  abstract release(ids: string[]): Promise<void>;

  /** Deletes delivered and failed messages created before `before`; how many. */
  abstract prune(before: Date): Promise<number>;
}
