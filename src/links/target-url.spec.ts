import { ApiError } from '../common/errors/api-error.js';
import { MAX_TARGET_URL_LENGTH, normalizeTargetUrl } from './target-url.js';

const BASE = 'https://sl.test';

function rejection(input: unknown, base = BASE): ApiError {
  try {
    normalizeTargetUrl(input, base);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error(`expected ${JSON.stringify(input)} to be refused`);
}

describe('normalizeTargetUrl', () => {
  it.each([
    ['https://example.com', 'https://example.com/'],
    ['http://example.com/path?q=1#frag', 'http://example.com/path?q=1#frag'],
    ['  https://example.com/trimmed  ', 'https://example.com/trimmed'],
    ['\thttps://example.com/tab-outside\n', 'https://example.com/tab-outside'],
    ['HTTPS://EXAMPLE.COM/Case', 'https://example.com/Case'],
    ['https://example.com:443/default-port', 'https://example.com/default-port'],
    ['https://example.com:8443/', 'https://example.com:8443/'],
    ['https://bücher.example/straße', 'https://xn--bcher-kva.example/stra%C3%9Fe'],
    ['https://example.com/🙂', 'https://example.com/%F0%9F%99%82'],
    ['https://example.com/a/../b', 'https://example.com/b'],
    ['http://127.0.0.1:8080/x', 'http://127.0.0.1:8080/x'],
    ['https://[::1]/', 'https://[::1]/'],
    ['https://example.com/%20encoded%09', 'https://example.com/%20encoded%09'],
    // The short domain on another port is another service.
    ['https://sl.test:8443/x', 'https://sl.test:8443/x'],
    ['https://other.sl.test/', 'https://other.sl.test/'],
  ])('accepts %j as %j', (input, expected) => {
    const sut = normalizeTargetUrl(input, BASE);

    expect(sut).toBe(expected);
  });

  it.each([
    ['not a string (number)', 42],
    ['not a string (null)', null],
    ['not a string (undefined)', undefined],
    ['not a string (array)', ['https://example.com/']],
    ['not a string (object)', { href: 'https://example.com/' }],
    ['empty', ''],
    ['only spaces', '   '],
    ['relative', '/path'],
    ['without scheme', 'example.com'],
    ['protocol-relative', '//example.com/'],
    ['javascript:', 'javascript:alert(1)'],
    ['data:', 'data:text/html,<script>alert(1)</script>'],
    ['ftp:', 'ftp://example.com/file'],
    ['file:', 'file:///etc/passwd'],
    ['mailto:', 'mailto:someone@example.com'],
    ['ws:', 'ws://example.com/'],
    ['a scheme without //', 'http:example.com'],
    ['backslashes instead of //', 'https:\\\\example.com'],
    ['no host', 'http://'],
    ['user info', 'https://bank.example@evil.example/'],
    ['user and password', 'https://user:secret@example.com/'],
    ['a tab inside', 'https://exa\tmple.com/'],
    ['a newline inside', 'https://example.com/a\nb'],
    ['a carriage return inside', 'https://example.com/a\rb'],
    ['a space inside', 'https://example.com/a b'],
    ['a no-break space inside', 'https://example.com/a\u00a0b'],
    ['a NUL inside', 'https://example.com/a\u0000b'],
    ['DEL inside', 'https://example.com/a\u007fb'],
    ['a C1 control inside', 'https://example.com/a\u0085b'],
    ['a lone surrogate', 'https://example.com/\ud800'],
    ['a reversed surrogate pair', 'https://example.com/\udc00\ud800'],
    ['an invalid host', 'https://exa mple.com/'],
    ['an invalid port', 'https://example.com:99999/'],
    ['the short domain itself', 'https://sl.test/abc'],
    ['the short domain over http', 'http://sl.test/abc'],
    ['the short domain in capitals', 'https://SL.TEST/abc'],
    ['the short domain with a trailing dot', 'https://sl.test./abc'],
  ])('refuses %s', (_label, input) => {
    const sut = rejection(input);

    expect(sut.errorName).toBe('invalid_url');
    expect(sut.getStatus()).toBe(400);
  });

  it('refuses the short base URL of a base with a port', () => {
    expect(rejection('http://localhost:3000/abc', 'http://localhost:3000').errorName).toBe('invalid_url');
    expect(normalizeTargetUrl('http://localhost:4000/abc', 'http://localhost:3000')).toBe('http://localhost:4000/abc');
  });

  it(`accepts exactly ${MAX_TARGET_URL_LENGTH} normalised characters and refuses one more`, () => {
    const prefix = 'https://example.com/';
    const longest = prefix + 'a'.repeat(MAX_TARGET_URL_LENGTH - prefix.length);

    expect(normalizeTargetUrl(longest, BASE)).toBe(longest);
    expect(rejection(`${longest}a`).errorName).toBe('invalid_url');
  });

  it('measures the length after normalisation', () => {
    // Each "é" becomes "%C3%A9" (6 characters): short input, too long once normalised.
    const input = `https://example.com/${'é'.repeat(1400)}`;
    expect(input.length).toBeLessThan(MAX_TARGET_URL_LENGTH);

    expect(rejection(input).errorName).toBe('invalid_url');
  });
});
