import { Injectable } from '@nestjs/common';

/**
 * Tells this instance's delivery worker that messages were just stored, so it claims them now
 * rather than at its next poll. Only a hint: the worker polls anyway, and other instances' writes
 * reach it that way.
 */
@Injectable()
export class OutboxSignal {
  private listener?: () => void;

  notify(): void {
    this.listener?.();
  }

  listen(listener: () => void): void {
    this.listener = listener;
  }
}
