import { Injectable } from '@nestjs/common';

/** What this instance's delivery worker hears from the writers of the outbox. */
export interface OutboxListener {
  /** Messages were just stored. */
  stored(): void;
  /** An endpoint was deleted: what is queued for it is not to be sent. */
  endpointRemoved(endpointId: string): void;
}

/**
 * Tells this instance's delivery worker (WebhookDispatcher) what the outbox's writers just did,
 * so it claims new messages now rather than at its next poll and drops what it queued for a
 * deleted endpoint. Only hints: the worker polls anyway, which is how other instances' writes
 * reach it, and how a `shortlink webhooks worker` process hears of everything. With
 * WEBHOOK_DELIVERY=off no one listens and a hint costs nothing.
 */
@Injectable()
export class OutboxSignal {
  private listener?: OutboxListener;

  notify(): void {
    this.listener?.stored();
  }

  endpointRemoved(endpointId: string): void {
    this.listener?.endpointRemoved(endpointId);
  }

  listen(listener: OutboxListener): void {
    this.listener = listener;
  }
}
