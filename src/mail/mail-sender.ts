import { createTransport, type Transporter } from 'nodemailer';
import type { MailSettings } from '../config/app-config.js';
import type { OutgoingMail } from './mail.repository.js';

/** How long connecting, the server's greeting and a silent socket may take before the attempt fails. */
const CONNECTION_TIMEOUT_MS = 10_000;
const SOCKET_TIMEOUT_MS = 30_000;

/** One attempt's outcome: sent, or why not (the server's reply code and text, or the connection's error). */
export type SendOutcome = { sent: true } | { sent: false; error: string };

/** An SMTP error as a line for the outbox and the log: the reply (code and text) or the error's code; never the message. */
function describe(error: unknown): string {
  const failure = error as { responseCode?: number; response?: string; code?: string; message?: string };
  if (failure.responseCode)
    return `${failure.responseCode} ${(failure.response ?? '').replace(/\s+/g, ' ').slice(0, 200)}`.trim();
  return `${failure.code ?? 'error'}: ${(failure.message ?? String(error)).replace(/\s+/g, ' ').slice(0, 200)}`;
}

/**
 * Sends one message over SMTP_URL with nodemailer: STARTTLS when the server offers it on
 * `smtp://`, TLS from the start on `smtps://`. A connection per message: mail here is rare
 * (resets, notices), and a pooled connection would outlive a server's restart.
 */
export class MailSender {
  private readonly transport: Transporter;

  constructor(settings: MailSettings) {
    // The URL's settings (host, port, TLS, credentials) with the time limits on top; the second
    // argument is the defaults of every message.
    this.transport = createTransport(
      {
        url: settings.smtpUrl,
        connectionTimeout: CONNECTION_TIMEOUT_MS,
        greetingTimeout: CONNECTION_TIMEOUT_MS,
        socketTimeout: SOCKET_TIMEOUT_MS,
      },
      { from: settings.from },
    );
  }

  async send(mail: OutgoingMail): Promise<SendOutcome> {
    try {
      await this.transport.sendMail({ to: mail.recipient, subject: mail.subject, text: mail.text, html: mail.html });
      return { sent: true };
    } catch (error) {
      return { sent: false, error: describe(error) };
    }
  }

  close(): void {
    this.transport.close();
  }
}
