import { Inject, Injectable } from '@nestjs/common';
import type { AppConfig } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.tokens.js';
import { MailRepository, type OutgoingMail } from './mail.repository.js';

/**
 * Where every email starts: stored in the outbox (`mail_messages`), then sent in the background
 * by MailDispatcher, so no request waits for a mail server and nothing is lost on a restart.
 * Without SMTP_URL nothing is stored: the service sends no email.
 */
@Injectable()
export class MailOutbox {
  private listener?: () => void;

  constructor(
    private readonly repository: MailRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Whether email is set up (SMTP_URL). */
  get enabled(): boolean {
    return this.config.mail !== undefined;
  }

  /** Stores the messages to be sent; false (nothing stored) when email is not set up. */
  async send(...messages: OutgoingMail[]): Promise<boolean> {
    if (!this.enabled) return false;
    await this.repository.add(messages);
    this.listener?.();
    return true;
  }

  /** Tells this instance's dispatcher that messages were stored (other than through `send`). */
  wake(): void {
    this.listener?.();
  }

  /** This instance's dispatcher: told when messages were stored here (other instances' it polls for). */
  listen(listener: () => void): void {
    this.listener = listener;
  }
}
