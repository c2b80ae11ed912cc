import { createHash } from 'node:crypto';
import { randomBase62 } from '../common/random.js';

const TOKEN_PATTERN = /^sl_[0-9A-Za-z]{40}$/;

/** A new raw API token: `sl_` + 40 base62 characters (~238 bits of entropy). */
export function generateRawToken(): string {
  return `sl_${randomBase62(40)}`;
}

/**
 * The last token hashed, and its hash. A call's token is hashed by the rate limit (its counter's
 * key) and then by the access guard (the lookup), one right after the other: the second is
 * answered from here. One entry, compared by value; a miss (another request in between) only
 * costs the hash.
 */
let lastHashed = { raw: '', hash: '' };

/** What is stored instead of the token: its SHA-256, hex. */
export function hashToken(raw: string): string {
  if (raw === lastHashed.raw) return lastHashed.hash;
  const hash = createHash('sha256').update(raw, 'utf8').digest('hex');
  lastHashed = { raw, hash };
  return hash;
}

/** The non-secret beginning of a token, shown in listings so owners can tell tokens apart. */
export function tokenPrefix(raw: string): string {
  return raw.slice(0, 7);
}

/** Cheap shape check so obviously wrong values are refused without a database query. */
export function looksLikeToken(value: string): boolean {
  return TOKEN_PATTERN.test(value);
}
