import { createHash } from 'node:crypto';
import { randomBase62 } from '../common/random.js';

const TOKEN_PATTERN = /^sl_[0-9A-Za-z]{40}$/;

/** A new raw API token: `sl_` + 40 base62 characters (~238 bits of entropy). */
export function generateRawToken(): string {
  return `sl_${randomBase62(40)}`;
}

/** What is stored instead of the token: its SHA-256, hex. */
export function hashToken(raw: string): string {
  return createHash('sha256').update(raw, 'utf8').digest('hex');
}

/** The non-secret beginning of a token, shown in listings so owners can tell tokens apart. */
export function tokenPrefix(raw: string): string {
  return raw.slice(0, 7);
}

/** Cheap shape check so obviously wrong values are refused without a database query. */
export function looksLikeToken(value: string): boolean {
  return TOKEN_PATTERN.test(value);
}
