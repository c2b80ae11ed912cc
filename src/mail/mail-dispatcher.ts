import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { AppConfig, MailSettings } from '../config/app-config.js';
import { APP_CONFIG } from '../config/config.tokens.js';
import { PollLoop } from '../common/poll-loop.js';
import { MailOutbox } from './mail-outbox.js';
import { MailSender } from './mail-sender.js';
import { MailRepository, type HeldMail } from './mail.repository.js';

/** How often the outbox is read for messages stored by other instances or due for a retry. */
const POLL_INTERVAL_MS = 2_000;
/** How long a claim holds a message: well over one attempt's longest (connection and socket timeouts). */
const HOLD_MS = 5 * 60_000;
/** Sent and given-up messages are kept this long (their bodies are emptied at once), then deleted. */
const KEEP_MESSAGES_MS = 30 * 86_400_000;
const PRUNE_INTERVAL_MS = 3_600_000;

/**
 * Sends the mail outbox in the background, one message at a time per instance: claims the due
 * messages (held until HOLD_MS from now, so no other instance attempts them meanwhile), sends
 * each, and records it sent, to be retried after the next delay of MAIL_RETRY_SCHEDULE, or given
 * up after the last (logged as an error). Logs name a message by its id and kind, never its
 * recipient's link or its body. Only the serving application runs it (MailDeliveryModule).
 */
@Injectable()
export class MailDispatcher implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('Mail');
  private readonly settings?: MailSettings;
  private sender?: MailSender;
  private readonly loop = new PollLoop(() => this.round(), POLL_INTERVAL_MS);
  private pruneTimer?: NodeJS.Timeout;
  /** Claimed and not yet attempted: released at shutdown. */
  private readonly held = new Set<string>();

  constructor(
    private readonly repository: MailRepository,
    outbox: MailOutbox,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.settings = config.mail;
    outbox.listen(() => this.loop.wake());
  }

  onApplicationBootstrap(): void {
    if (!this.settings) return;
    this.sender = new MailSender(this.settings);
    this.loop.start();
    this.pruneTimer = setInterval(() => void this.prune(), PRUNE_INTERVAL_MS);
    this.pruneTimer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.loop.running) return;
    clearInterval(this.pruneTimer);
    await this.loop.stop();
    await this.repository.release([...this.held]).catch(() => undefined);
    this.sender?.close();
  }

  /** One round of the loop: what is due, sent. */
  private async round(): Promise<boolean> {
    try {
      await this.sendDue();
    } catch (error) {
      // The database was away: the next round tries again; nothing is lost.
      this.logger.warn(`Reading the mail outbox failed: ${(error as Error).message}`);
    }
    return false;
  }

  /** Sends what is due until nothing is, or the instance stops. */
  private async sendDue(): Promise<void> {
    while (this.loop.running) {
      const now = new Date();
      const claimed = await this.repository.claim(now, new Date(now.getTime() + HOLD_MS));
      if (claimed.length === 0) return;
      for (const message of claimed) this.held.add(message.id);
      for (const message of claimed) {
        if (!this.loop.running) return;
        await this.attempt(message);
        this.held.delete(message.id);
      }
    }
  }

  private async attempt(message: HeldMail): Promise<void> {
    const outcome = await this.sender!.send(message);
    const attempt = message.attempts + 1;
    if (outcome.sent) {
      await this.repository.sent(message.id, new Date());
      this.logger.log(`Mail ${message.id} (${message.kind}) sent`);
      return;
    }
    const schedule = this.settings!.retryScheduleSeconds;
    const delay = schedule[message.attempts];
    if (delay === undefined) {
      await this.repository.failed(message.id, outcome.error, null);
      this.logger.error(`Mail ${message.id} (${message.kind}) given up after ${attempt} attempts: ${outcome.error}`);
      return;
    }
    await this.repository.failed(message.id, outcome.error, new Date(Date.now() + delay * 1000));
    this.logger.warn(
      `Mail ${message.id} (${message.kind}) not sent (attempt ${attempt}), tried again in ${delay} s: ${outcome.error}`,
    );
  }

  private async prune(): Promise<void> {
    try {
      await this.repository.prune(new Date(Date.now() - KEEP_MESSAGES_MS));
    } catch (error) {
      this.logger.warn(`Pruning the mail outbox failed: ${(error as Error).message}`);
    }
  }
}
