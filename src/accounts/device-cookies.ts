import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Device cookies (OWASP's "slow brute force" defence): a browser that signed in to an account
 * carries a proof of it, so a sign-in from that browser is counted on a counter of its own and
 * an attacker guessing the account's password from elsewhere cannot lock the owner out.
 *
 * The cookie is `<nonce>.<mac>`: a random nonce and an HMAC of it and the account id, keyed by
 * the account's stored password hash. That key is a secret only the server holds, is the same
 * on every instance, and changes with the password, so setting a new password (dashboard or
 * CLI) retires every device cookie without a table of them.
 */
const NONCE_BYTES = 16;
const COOKIE = /^([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

function mac(key: string, accountId: string, nonce: string): Buffer {
  return createHmac('sha256', key).update(`shortlink-device\0${accountId}\0${nonce}`).digest();
}

export function issueDeviceCookie(accountId: string, passwordHash: string): string {
  const nonce = randomBytes(NONCE_BYTES).toString('base64url');
  return `${nonce}.${mac(passwordHash, accountId, nonce).toString('base64url')}`;
}

/** The cookie's nonce when it was issued for this account and its current password, else null. */
export function verifyDeviceCookie(cookie: string | undefined, accountId: string, passwordHash: string): string | null {
  const match = cookie === undefined ? null : COOKIE.exec(cookie);
  if (!match) return null;
  const [, nonce = '', given = ''] = match;
  const expected = mac(passwordHash, accountId, nonce);
  const actual = Buffer.from(given, 'base64url');
  return actual.length === expected.length && timingSafeEqual(actual, expected) ? nonce : null;
}
