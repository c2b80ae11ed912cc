import { randomBytes } from 'node:crypto';

/** Random bytes of a signing secret: Standard Webhooks asks for 24 to 64. */
const SECRET_BYTES = 32;

/** A new signing secret: `whsec_` + base64 of 32 random bytes, as Standard Webhooks libraries take it. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/** The current millisecond as 12 hex digits: what message ids start with (see outbox-messages.ts). */
function timeHex(): string {
  return Date.now().toString(16).padStart(12, '0');
}

/**
 * A message's `webhook-id`: `msg_` + 32 hex characters, time-ordered (SQL writes the same shape,
 * see outbox-messages.ts).
 */
export function newMessageId(): string {
  return `msg_${timeHex()}${randomBytes(10).toString('hex')}`;
}

/** A message row's id: a UUID version 7 (time-ordered), as the outbox statements make them. */
export function newMessageRowId(): string {
  const time = timeHex();
  const random = randomBytes(10);
  // The variant's two bits (10) over the first random byte of the fourth group.
  random[2] = (random[2] & 0x3f) | 0x80;
  const hex = random.toString('hex');
  return `${time.slice(0, 8)}-${time.slice(8)}-7${hex.slice(0, 3)}-${hex.slice(4, 8)}-${hex.slice(8, 20)}`;
}
