/** How a delivery worker looks for work: the in-process one, or a `shortlink webhooks worker`. */
export interface DeliveryOptions {
  /**
   * How often it looks for due messages when nothing woke it. In the instance that stores the
   * messages its own writes wake it at once, and the poll only finds other instances' messages and
   * retries coming due; a worker process of its own hears of nothing, so it polls often (a read
   * on an index that finds nothing, see WebhookMessageStore.claim).
   */
  pollIntervalMs: number;
  /**
   * Outcomes of attempts that end within this long of each other are recorded together (one
   * transaction). Nothing waits for a record but the lease, which lasts minutes: the longer, the
   * fewer commits, each of which a process beside it sharing the database pays for too (on
   * SQLite, other connections drop their page cache at every commit another one makes).
   */
  recordDelayMs: number;
}

export const DELIVERY_OPTIONS = Symbol('DELIVERY_OPTIONS');

/** The in-process worker (WEBHOOK_DELIVERY=inline). */
export const INLINE_DELIVERY: DeliveryOptions = { pollIntervalMs: 500, recordDelayMs: 5 };
/** `shortlink webhooks worker`: a new message waits 50 ms on average before it is claimed. */
export const WORKER_PROCESS_DELIVERY: DeliveryOptions = { pollIntervalMs: 100, recordDelayMs: 50 };
