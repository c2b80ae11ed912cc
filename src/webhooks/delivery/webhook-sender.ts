import { Webhook } from 'standardwebhooks';
import { Agent, request } from 'undici';
import { addressLiteral, guardedLookup, isForbiddenAddress } from '../destination.js';

/** Bytes of a receiver's answer read (and discarded) before the connection is dropped. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

/** A message as one attempt sends it. */
export interface OutgoingMessage {
  url: string;
  secret: string;
  messageId: string;
  payload: string;
}

/** What one attempt came to: delivered on a 2xx; the status when there was an answer. */
export interface AttemptOutcome {
  delivered: boolean;
  status: number | null;
  /** Why there was no 2xx: for the log. */
  reason?: string;
  /** The attempt was cut off by a shutdown: not an attempt at all, to be made again. */
  cutOff?: boolean;
}

/**
 * Posts messages to receivers, signed as Standard Webhooks says (`standardwebhooks`' own
 * `Webhook#sign`, so any Standard Webhooks library verifies them): `webhook-id`,
 * `webhook-timestamp` (the attempt's time) and `webhook-signature`.
 *
 * Each attempt has `timeoutMs` in all, connection to the last byte read; redirects are not
 * followed (a 3xx is a failed attempt); at most MAX_RESPONSE_BYTES of the answer are read, and
 * discarded. Unless private addresses are allowed, the address is checked when the connection is
 * made (`guardedLookup` for names, here for address literals), so a name that resolved to a public
 * address at creation and to a private one now (DNS rebinding) is refused now.
 */
export class WebhookSender {
  private readonly agent: Agent;

  constructor(
    private readonly timeoutMs: number,
    private readonly allowPrivate: boolean,
    private readonly cutOff: AbortSignal = new AbortController().signal,
  ) {
    this.agent = new Agent({
      connect: { timeout: timeoutMs, ...(allowPrivate ? {} : { lookup: guardedLookup }) },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      // A receiver's connections are reused between its messages, a few at a time.
      keepAliveTimeout: 4_000,
      connections: 16,
    });
  }

  async send(message: OutgoingMessage): Promise<AttemptOutcome> {
    let url: URL;
    try {
      url = new URL(message.url);
    } catch {
      return { delivered: false, status: null, reason: 'invalid URL' };
    }
    const literal = addressLiteral(url.hostname);
    if (!this.allowPrivate && literal !== undefined && isForbiddenAddress(literal)) {
      return { delivered: false, status: null, reason: `forbidden address ${literal}` };
    }
    // The signature covers the timestamp header: both from one instant.
    const now = new Date();
    let signature: string;
    try {
      signature = new Webhook(message.secret).sign(message.messageId, now, message.payload);
    } catch (error) {
      return { delivered: false, status: null, reason: `cannot sign: ${String(error)}` };
    }
    const timestamp = Math.floor(now.getTime() / 1000);
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const abort = AbortSignal.any([timeout, this.cutOff]);
    try {
      const response = await request(url, {
        method: 'POST',
        dispatcher: this.agent,
        signal: abort,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'shortlink-webhooks',
          'webhook-id': message.messageId,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signature,
        },
        body: message.payload,
      });
      await readBounded(response.body);
      const delivered = response.statusCode >= 200 && response.statusCode < 300;
      return { delivered, status: response.statusCode, reason: delivered ? undefined : `HTTP ${response.statusCode}` };
    } catch (error) {
      if (this.cutOff.aborted) return { delivered: false, status: null, cutOff: true };
      return { delivered: false, status: null, reason: describe(error, timeout) };
    }
  }

  async close(): Promise<void> {
    await this.agent.destroy();
  }
}

/** Reads up to MAX_RESPONSE_BYTES of a body and drops the rest (and the connection, if more came). */
async function readBounded(body: AsyncIterable<Buffer> & { destroy(error?: Error): unknown }): Promise<void> {
  let read = 0;
  try {
    for await (const chunk of body) {
      read += chunk.length;
      if (read > MAX_RESPONSE_BYTES) {
        body.destroy();
        return;
      }
    }
  } catch {
    // The status decides the outcome; a body cut short or timing out afterwards changes nothing.
  }
}

function describe(error: unknown, timeout: AbortSignal): string {
  if (timeout.aborted) return 'timed out';
  const { name, code, message } = (error ?? {}) as { name?: string; code?: string; message?: string };
  return [name, code, message].filter(Boolean).join(': ') || String(error);
}
