import { DEFAULT_NEXT, safeNext } from './safe-next.js';

describe('safeNext', () => {
  it.each(['/dashboard', '/dashboard/tokens', '/dashboard/links/abc?x=1#top', '/account', '/%2F%2Fevil.example'])(
    'keeps the path on this site %j',
    (next) => {
      expect(safeNext(next)).toBe(next);
    },
  );

  it.each([
    ['another origin', 'https://evil.example/'],
    ['a protocol-relative URL', '//evil.example/'],
    ['a backslash that browsers read as a slash', '/\\evil.example'],
    ['a backslash later on', '/dashboard\\..\\'],
    ['a script URL', 'javascript:alert(1)'],
    ['a relative path', 'dashboard'],
    ['a tab inside', '/\t/evil.example'],
    ['a newline (header splitting)', '/dashboard\r\nSet-Cookie: x=1'],
    ['a DEL character (ERR_INVALID_CHAR in Location before)', '/\x7f/x'],
    ['a line separator U+2028', '/dashboard\u2028'],
    ['a non-ASCII letter', '/dashboard/caf\u00e9'],
    ['a space', '/dashboard?q=a b'],
    ['an empty value', ''],
    ['a path longer than 2,000 characters', `/${'a'.repeat(2000)}`],
  ])('falls back to the links page for %s', (_, next) => {
    expect(safeNext(next)).toBe(DEFAULT_NEXT);
  });

  it.each([undefined, null, 42, ['/dashboard'], { next: '/dashboard' }])(
    'falls back to the links page for a value that is not a string (%j)',
    (next) => {
      expect(safeNext(next)).toBe(DEFAULT_NEXT);
    },
  );
});
