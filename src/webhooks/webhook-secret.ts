import { randomBytes } from 'node:crypto';

/** Random bytes of a signing secret: Standard Webhooks asks for 24 to 64. */
const SECRET_BYTES = 32;

/** A new signing secret: `whsec_` + base64 of 32 random bytes, as Standard Webhooks libraries take it. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(SECRET_BYTES).toString('base64')}`;
}

/** A message's `webhook-id`: `msg_` + 32 hex characters (SQL writes the same shape, see the outbox stores). */
export function newMessageId(): string {
  return `msg_${randomBytes(16).toString('hex')}`;
}
