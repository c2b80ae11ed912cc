/** Where sign-in leads when `?next=` is missing or unsafe. */
export const DEFAULT_NEXT = '/dashboard';

/**
 * `?next=` only ever leads to a clean path on this site: `/x`, never `//evil` or `/\evil`, and
 * only printable ASCII (a percent-encoded path is fine). Anything else (control characters, DEL,
 * non-ASCII such as U+2028, which cannot go into a `Location` header) falls back to /dashboard.
 */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || next.length > 2000) return DEFAULT_NEXT;
  // Backslashes are refused too: browsers read `/\evil` as `//evil`.
  if (!/^\/(?![/\\])[\x21-\x5b\x5d-\x7e]*$/.test(next)) return DEFAULT_NEXT;
  return next;
}
