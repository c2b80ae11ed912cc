import { Webhook } from 'standardwebhooks';
import type { Agent, request as undiciRequest } from 'undici';

/**
 * undici, loaded when the first message is sent: a process whose accounts have no webhooks (most
 * of them, and every instance under a redirect load) never needs it, and it costs about 5 MiB of
 * heap once loaded.
 */
let undici: Promise<typeof import('undici')> | undefined;
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
 * Posts messages to receivers, signed as Standard Webhooks says: `webhook-id`,
 * `webhook-timestamp` (the attempt's time) and `webhook-signature` (`signMessage`, which gives
 * what `standardwebhooks`' `Webhook#sign` gives; its `verify` accepts every message).
 *
 * Each attempt has `timeoutMs` in all, connection to the last byte read; redirects are not
 * followed (a 3xx is a failed attempt); at most MAX_RESPONSE_BYTES of the answer are read, and
 * discarded. Unless private addresses are allowed, the address is checked when the connection is
 * made (`guardedLookup` for names, here for address literals), so a name that resolved to a public
 * address at creation and to a private one now (DNS rebinding) is refused now.
 */
export class WebhookSender {
  /** The connection pool and the request function, made on the first send. */
  private client?: Promise<{ agent: Agent; request: typeof undiciRequest }>;
  /** The attempts under way, each by its abort controller: the cut-off aborts them all. */
  private readonly underWay = new Set<AbortController>();

  constructor(
    private readonly timeoutMs: number,
    private readonly allowPrivate: boolean,
    private readonly cutOff: AbortSignal = new AbortController().signal,
  ) {
    cutOff.addEventListener('abort', () => {
      for (const controller of this.underWay) controller.abort();
    });
  }

  private connect(): Promise<{ agent: Agent; request: typeof undiciRequest }> {
    this.client ??= (undici ??= import('undici')).then(({ Agent, request }) => ({
      agent: new Agent({
        connect: { timeout: this.timeoutMs, ...(this.allowPrivate ? {} : { lookup: guardedLookup }) },
        headersTimeout: this.timeoutMs,
        bodyTimeout: this.timeoutMs,
        // A receiver's connections are reused between its messages, a few at a time.
        keepAliveTimeout: 4_000,
        connections: 16,
      }),
      request,
    }));
    return this.client;
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
    const { agent, request } = await this.connect();
    if (this.cutOff.aborted) return { delivered: false, status: null, cutOff: true };
    // The signature covers the timestamp header: both from one instant.
    const timestamp = Math.floor(Date.now() / 1000);
    let signature: string;
    try {
      signature = signMessage(message.secret, message.messageId, timestamp, message.payload);
    } catch (error) {
      return { delivered: false, status: null, reason: `cannot sign: ${String(error)}` };
    }
    // One controller per attempt, aborted by its own timer or by the cut-off (AbortSignal.timeout
    // and AbortSignal.any cost 20 µs an attempt).
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.timeoutMs);
    this.underWay.add(controller);
    try {
      const response = await request(url, {
        method: 'POST',
        dispatcher: agent,
        signal: controller.signal,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'shortlink-webhooks',
          'webhook-id': message.messageId,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signature,
        },
        body: message.payload,
      });
      // Read (and dropped) up to the limit; beyond it the connection is closed. The status
      // decides the outcome, whatever happens to the body.
      await response.body.dump({ limit: MAX_RESPONSE_BYTES });
      const delivered = response.statusCode >= 200 && response.statusCode < 300;
      return { delivered, status: response.statusCode, reason: delivered ? undefined : `HTTP ${response.statusCode}` };
    } catch (error) {
      if (this.cutOff.aborted) return { delivered: false, status: null, cutOff: true };
      return { delivered: false, status: null, reason: timedOut ? 'timed out' : describe(error) };
    } finally {
      clearTimeout(timer);
      this.underWay.delete(controller);
    }
  }

  async close(): Promise<void> {
    if (this.client) await (await this.client).agent.destroy();
  }
}

/**
 * The `webhook-signature` of a message, by `standardwebhooks`' own `Webhook#sign` (the issue asks
 * for it by name, so receivers verify with any Standard Webhooks library and the signing follows
 * the library's fixes): `v1,` + base64 of HMAC-SHA256 over `id.timestamp.body`, keyed with the
 * base64-decoded part of the secret after `whsec_`. Its SHA-256 is written in JavaScript: about
 * 10 µs a message, where node:crypto's HMAC took 2.5; next to the 200-300 µs a delivery costs,
 * within the bench's spread (docs/performance.md).
 */
export function signMessage(secret: string, messageId: string, timestamp: number, payload: string): string {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('the secret does not start with whsec_');
  return new Webhook(secret).sign(messageId, new Date(timestamp * 1000), payload);
}

const SECRET_PREFIX = 'whsec_';

function describe(error: unknown): string {
  const { name, code, message } = (error ?? {}) as { name?: string; code?: string; message?: string };
  return [name, code, message].filter(Boolean).join(': ') || String(error);
}
