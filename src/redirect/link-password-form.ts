import { createHmac, timingSafeEqual } from 'node:crypto';

/** How long a password form may be posted after it was shown. */
export const FORM_TOKEN_LIFETIME_MS = 2 * 60 * 60 * 1000;
/** A form issued by an instance whose clock is a little ahead is still taken. */
const CLOCK_SKEW_MS = 60 * 1000;

/**
 * What the token's MAC covers: the link, the client's address and when the form was shown.
 * Keyed with the link's password hash, which never leaves the service and is the same on every
 * instance (so a form shown by one is taken by another), and changes with the password.
 */
function mac(code: string, clientIp: string, passwordHash: string, issuedSeconds: number): Buffer {
  return createHmac('sha256', passwordHash)
    .update(`shortlink link-password form\0${code}\0${clientIp}\0${issuedSeconds}`)
    .digest();
}

/**
 * The token of a protected link's password form (its hidden `_csrf` field): a CSRF token that
 * needs no cookie and no script. A page on another site cannot read the form a visitor's browser
 * is shown (the redirect routes send no CORS headers), and a token the attacker's own server
 * fetches is bound to the server's address, not the visitor's: so a cross-site page cannot make
 * visitors' browsers guess a link's password (spreading guesses over their addresses) or lock
 * them out. `issued.mac`, the time in base 36 seconds.
 */
export function issueFormToken(code: string, clientIp: string, passwordHash: string, now = Date.now()): string {
  const issued = Math.floor(now / 1000);
  return `${issued.toString(36)}.${mac(code, clientIp, passwordHash, issued).toString('base64url')}`;
}

/** A token of the form shown for this link, to this client address, under this password, not too long ago. */
export function formTokenValid(
  token: unknown,
  code: string,
  clientIp: string,
  passwordHash: string,
  now = Date.now(),
): boolean {
  if (typeof token !== 'string' || token.length > 100) return false;
  const match = /^([0-9a-z]{1,10})\.([\w-]{43})$/.exec(token);
  if (!match) return false;
  const issued = parseInt(match[1], 36);
  const issuedMs = issued * 1000;
  if (issuedMs > now + CLOCK_SKEW_MS || now - issuedMs > FORM_TOKEN_LIFETIME_MS) return false;
  const given = Buffer.from(match[2], 'base64url');
  const expected = mac(code, clientIp, passwordHash, issued);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
