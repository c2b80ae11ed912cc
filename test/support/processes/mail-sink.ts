import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { until } from '../eventually.js';

/** A message the sink took, parsed. */
export interface ReceivedMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  from: string;
}

/** How the sink answers a message: takes it, refuses for now (451), or for good (550). */
export type SinkMode = 'accept' | 'temporary-failure' | 'permanent-failure';

/**
 * A real SMTP server on 127.0.0.1 (the `smtp-server` package) that keeps what it receives, for
 * the specs to read as a person reads their mailbox. It can refuse (4xx or 5xx), and be stopped
 * and started again on the same port, as a mail server that goes down and comes back.
 */
export class MailSink {
  readonly received: ReceivedMail[] = [];
  mode: SinkMode = 'accept';
  /** Messages refused so far. */
  refused = 0;
  private server?: SMTPServer;
  port = 0;

  static async start(): Promise<MailSink> {
    const sink = new MailSink();
    await sink.listen(0);
    return sink;
  }

  /** SMTP_URL for the service. */
  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  private listen(port: number): Promise<void> {
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData: (stream, _session, callback) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          if (this.mode !== 'accept') {
            this.refused++;
            const error = Object.assign(
              new Error(this.mode === 'temporary-failure' ? 'Try again later' : 'Mailbox unavailable'),
              {
                responseCode: this.mode === 'temporary-failure' ? 451 : 550,
              },
            );
            callback(error);
            return;
          }
          void simpleParser(Buffer.concat(chunks)).then((mail) => {
            const to = Array.isArray(mail.to) ? mail.to[0] : mail.to;
            this.received.push({
              to: to?.value[0]?.address ?? '',
              from: mail.from?.text ?? '',
              subject: mail.subject ?? '',
              text: mail.text ?? '',
              html: typeof mail.html === 'string' ? mail.html : '',
            });
            callback();
          }, callback);
        });
      },
    });
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        this.port = (server.server.address() as AddressInfo).port;
        resolve();
      });
    });
  }

  /** Down: connections are refused until `restart()`. */
  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  restart(): Promise<void> {
    return this.listen(this.port);
  }

  /** The messages to `to`, waiting until there are `count` of them. */
  async mailsTo(to: string, count = 1, timeoutMs = 15_000): Promise<ReceivedMail[]> {
    await until(() => this.received.filter((mail) => mail.to === to).length >= count, timeoutMs);
    return this.received.filter((mail) => mail.to === to);
  }

  /** The first link in a message's text that starts with `prefix`. */
  static linkIn(mail: ReceivedMail, prefix: string): string {
    const escaped = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const match = new RegExp(`${escaped}\\S+`).exec(mail.text);
    if (!match) throw new Error(`No link starting with ${prefix} in: ${mail.text}`);
    return match[0];
  }
}
