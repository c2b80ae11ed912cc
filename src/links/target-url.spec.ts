import { ApiError } from '../common/errors/api-error.js';
import { MAX_TARGET_URL_LENGTH, normalizeTargetUrl, pointsAtService } from './target-url.js';

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

  it('says that a target refused as a loop points back at the service', () => {
    const sut = rejection('http://[::ffff:127.0.0.1]:3000/x', 'http://127.0.0.1:3000');

    expect(sut.errorName).toBe('invalid_url');
    expect(sut.detail).toMatch(/points back at this short-link service/);
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

describe('pointsAtService', () => {
  const sut = (target: string, base: string) => pointsAtService(new URL(target), new URL(base));

  it.each([
    // Loopback under every name, on the base's port (issue 33).
    ['http://127.0.0.1:3000', 'http://127.0.0.1:3000/x'],
    ['http://127.0.0.1:3000', 'http://localhost:3000/x'],
    ['http://127.0.0.1:3000', 'http://LOCALHOST.:3000/x'],
    ['http://127.0.0.1:3000', 'http://localhost..:3000/x'],
    ['http://127.0.0.1:3000', 'http://[::ffff:127.0.0.1]:3000/x'],
    ['http://127.0.0.1:3000', 'http://[::1]:3000/x'],
    ['http://127.0.0.1:3000', 'http://[0:0:0:0:0:0:0:1]:3000/x'],
    ['http://127.0.0.1:3000', 'http://127.1:3000/x'],
    ['http://127.0.0.1:3000', 'http://2130706433:3000/x'],
    ['http://127.0.0.1:3000', 'http://0x7f.0.0.1:3000/x'],
    ['http://127.0.0.1:3000', 'http://127.0.0.1.:3000/x'],
    ['http://127.0.0.1:3000', 'http://127.8.9.10:3000/x'],
    ['http://127.0.0.1:3000', 'http://app.localhost:3000/x'],
    ['http://127.0.0.1:3000', 'http://0.0.0.0:3000/x'],
    ['http://127.0.0.1:3000', 'http://[::]:3000/x'],
    ['http://127.0.0.1:3000', 'https://localhost:3000/x'],
    ['http://localhost:3000', 'http://127.0.0.1:3000/x'],
    ['http://localhost:3000', 'http://[::1]:3000/x'],
    ['http://[::1]:3000', 'http://localhost:3000/x'],
    // A named host: case, trailing dot, IDNA, default ports.
    ['https://sho.rt', 'https://sho.rt/x'],
    ['https://sho.rt', 'https://SHO.RT./x'],
    ['https://sho.rt', 'https://sho.rt:443/x'],
    ['https://sho.rt', 'https://ｓｈｏ.ｒｔ/x'],
    ['https://sho.rt', 'http://sho.rt/x'], // http:// is redirected to https:// in front of the service
    ['https://sho.rt', 'http://SHO.RT./x'],
    ['https://sho.rt', 'http://sho.rt:80/x'],
    ['https://sho.rt', 'http://sho.rt:443/x'], // the same effective port, in the other scheme
    ['http://sho.rt', 'https://sho.rt/x'],
    ['https://sho.rt:8443', 'http://sho.rt:8443/x'],
    ['https://203.0.113.7', 'https://[::ffff:203.0.113.7]/x'],
  ])('base %s: %s points at the service', (base, target) => {
    expect(sut(target, base)).toBe(true);
  });

  it.each([
    ['http://127.0.0.1:3000', 'http://127.0.0.1:3001/x'],
    ['http://127.0.0.1:3000', 'http://localhost:3001/x'],
    ['http://127.0.0.1:3000', 'http://localhost/x'],
    ['http://127.0.0.1:3000', 'https://localhost/x'],
    ['http://127.0.0.1:3000', 'http://localhost.example.com:3000/x'],
    ['http://127.0.0.1:3000', 'http://127.0.0.1.nip.io:3000/x'],
    ['http://127.0.0.1:3000', 'http://localhostx:3000/x'],
    ['http://127.0.0.1:3000', 'http://10.0.0.1:3000/x'],
    ['http://127.0.0.1:3000', 'http://[::2]:3000/x'],
    ['http://127.0.0.1:3000', 'http://[::ffff:10.0.0.1]:3000/x'],
    ['http://127.0.0.1:3000', 'http://example.com:3000/x'],
    ['https://sho.rt', 'https://sho.rt:8443/x'],
    ['https://sho.rt', 'http://sho.rt:8080/x'],
    ['https://sho.rt', 'https://www.sho.rt/x'],
    ['https://sho.rt', 'https://sho.rt.example/x'],
    ['https://sho.rt', 'https://localhost/x'], // the visitor's own machine, not the service
    ['https://sho.rt', 'https://127.0.0.1/x'],
    ['https://sho.rt:8443', 'https://sho.rt/x'],
    ['http://sho.rt', 'http://sho.rt:443/x'],
  ])('base %s: %s is another service', (base, target) => {
    expect(sut(target, base)).toBe(false);
  });
});
