/** The events an endpoint may subscribe to (all of them when it names none). */
export const WEBHOOK_EVENTS = ['link.created', 'link.updated', 'link.deleted', 'link.clicked'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** What `POST /api/webhooks/{id}/test` sends; no endpoint subscribes to it, each can be sent one. */
export const TEST_EVENT = 'webhook.test';

/** Every type a message may have. */
export type MessageType = WebhookEvent | typeof TEST_EVENT;

export function isWebhookEvent(value: string): value is WebhookEvent {
  return (WEBHOOK_EVENTS as readonly string[]).includes(value);
}

/**
 * The body of a message, exactly as it is stored and sent (and signed): the Standard Webhooks
 * shape `{"type", "timestamp", "data"}`, `timestamp` being when the event happened.
 */
export function messageBody(type: MessageType, data: object, at: Date): string {
  return JSON.stringify({ type, timestamp: at.toISOString(), data });
}

/**
 * How an endpoint's events are stored (`webhook_endpoints.events`): space-separated, with a space
 * either side, so that `LIKE '% link.created %'`, `instr(events, ' link.created ')` and
 * `includes(' link.created ')` find one exactly.
 */
export function storedEvents(events: readonly WebhookEvent[]): string {
  return ` ${events.join(' ')} `;
}

/** The events of a stored `events` column. */
export function parseStoredEvents(stored: string): WebhookEvent[] {
  return stored.split(' ').filter(isWebhookEvent);
}

/** The LIKE pattern that finds `event` in a stored `events` column. */
export function eventPattern(event: WebhookEvent): string {
  return `% ${event} %`;
}

/**
 * What `instr(events, ?) > 0` looks for to find `event` in a stored `events` column: SQLite's
 * statements use it rather than a LIKE with a bound pattern, which makes SQLite prepare the
 * statement again at every run (its LIKE optimisation depends on the pattern): 30 µs an INSERT.
 */
export function eventToken(event: WebhookEvent): string {
  return ` ${event} `;
}
