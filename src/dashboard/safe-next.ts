/** Where sign-in leads when `?next=` is missing or unsafe. */
export const DEFAULT_NEXT = '/dashboard';

/** `?next=` only ever leads to a path on this site: `/x`, never `//evil` or `/\evil`. */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || next.length > 2000) return DEFAULT_NEXT;
  // Control characters and backslashes are refused outright: browsers read `/\evil` as `//evil`.
  const unsafe = [...next].some((character) => character < ' ' || character === '\\');
  if (!/^\/(?![/\\])/.test(next) || unsafe) return DEFAULT_NEXT;
  return next;
}
