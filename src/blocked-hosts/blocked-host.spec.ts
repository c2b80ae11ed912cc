import { ApiError } from '../common/errors/api-error.js';
import { blockerOf, blockKeys, normalizeBlockedHost } from './blocked-host.js';

function refusal(input: unknown): string {
  try {
    normalizeBlockedHost(input);
  } catch (error) {
    if (error instanceof ApiError && error.errorName === 'validation_failed') return error.detail;
    throw error;
  }
  throw new Error(`${String(input)} was accepted`);
}

describe('normalizeBlockedHost', () => {
  it('writes a host as the URL parser does: lower case, punycode, no trailing dot, IP addresses normalised', () => {
    expect(normalizeBlockedHost('Evil.Example')).toBe('evil.example');
    expect(normalizeBlockedHost('  evil.example.  ')).toBe('evil.example');
    expect(normalizeBlockedHost('bücher.example')).toBe('xn--bcher-kva.example');
    expect(normalizeBlockedHost('xn--bcher-kva.example')).toBe('xn--bcher-kva.example');
    expect(normalizeBlockedHost('BÜCHER.example.')).toBe('xn--bcher-kva.example');
    expect(normalizeBlockedHost('203.0.113.7')).toBe('203.0.113.7');
    expect(normalizeBlockedHost('0xcb.0.113.7')).toBe('203.0.113.7');
    expect(normalizeBlockedHost('2001:DB8::1')).toBe('[2001:db8::1]');
    expect(normalizeBlockedHost('[2001:db8:0:0::1]')).toBe('[2001:db8::1]');
  });

  it('refuses a URL, naming the host to give instead', () => {
    expect(refusal('https://Evil.Example/login?x=1')).toBe('host must be a host name, not a URL: give evil.example');
    expect(refusal('http://')).toBe('host must be a host name, not a URL');
  });

  it('refuses a port, a path, user info, spaces, a wildcard and a single label, saying why', () => {
    expect(refusal('evil.example:8080')).toMatch(/without a port: blocking evil\.example blocks it on every port/);
    expect(refusal('EVIL.example:80')).toMatch(/without a port/);
    expect(refusal('[2001:db8::1]:443')).toMatch(/without a port/);
    expect(refusal('evil.example/path')).toMatch(/host name alone/);
    expect(refusal('user@evil.example')).toMatch(/host name alone/);
    expect(refusal('evil example')).toMatch(/host name alone/);
    expect(refusal('evil.example\u0000')).toMatch(/host name alone/);
    expect(refusal('*.evil.example')).toBe(
      'host must be a host name without a wildcard: evil.example blocks its subdomains already',
    );
    expect(refusal('com')).toMatch(/at least two labels/);
    expect(refusal('localhost')).toMatch(/at least two labels/);
  });

  it('refuses what is no host at all, and input of the wrong type or size', () => {
    expect(refusal('')).toBe('host must not be empty');
    expect(refusal('   ')).toBe('host must not be empty');
    expect(refusal('ex..ample')).toMatch(/not a valid host name/);
    expect(refusal('.example')).toMatch(/not a valid host name/);
    expect(refusal('a%zz.example')).toMatch(/not a valid host name/);
    expect(refusal(`${'a'.repeat(250)}.example`)).toMatch(/at most 253 characters/);
    expect(refusal('x'.repeat(10_000))).toMatch(/at most 253 characters/);
    expect(refusal(42)).toMatch(/must be a string/);
    expect(refusal(null)).toMatch(/must be a string/);
    expect(refusal(['evil.example'])).toMatch(/must be a string/);
  });

  it('answers the field it is about, for forms', () => {
    try {
      normalizeBlockedHost('https://evil.example/');
    } catch (error) {
      expect((error as ApiError).fieldErrors).toEqual([
        { field: 'host', message: 'host must be a host name, not a URL: give evil.example' },
      ]);
    }
  });
});

describe('blockKeys', () => {
  it('is the host and every domain it belongs to', () => {
    expect(blockKeys('a.b.evil.example')).toEqual(['a.b.evil.example', 'b.evil.example', 'evil.example', 'example']);
    expect(blockKeys('evil.example.')).toEqual(['evil.example', 'example']);
  });

  it('is an IP address alone', () => {
    expect(blockKeys('203.0.113.7')).toEqual(['203.0.113.7']);
    expect(blockKeys('[2001:db8::1]')).toEqual(['[2001:db8::1]']);
  });
});

describe('blockerOf', () => {
  const blocked = new Set(['evil.example', '203.0.113.7', 'xn--bcher-kva.example']);

  it('finds the blocked host a URL points at, or one of its subdomains, on any port or scheme', () => {
    expect(blockerOf('https://evil.example/', blocked)).toBe('evil.example');
    expect(blockerOf('http://www.EVIL.example:8080/x', blocked)).toBe('evil.example');
    expect(blockerOf('https://a.b.evil.example./', blocked)).toBe('evil.example');
    expect(blockerOf('https://bücher.example/', blocked)).toBe('xn--bcher-kva.example');
    expect(blockerOf('http://203.0.113.7/', blocked)).toBe('203.0.113.7');
  });

  it('lets every other host through, lookalikes included', () => {
    expect(blockerOf('https://notevil.example/', blocked)).toBeNull();
    expect(blockerOf('https://evil.example.com/', blocked)).toBeNull();
    expect(blockerOf('https://good.example/?next=https://evil.example/', blocked)).toBeNull();
    expect(blockerOf('https://good.example/evil.example/', blocked)).toBeNull();
    expect(blockerOf('http://203.0.113.70/', blocked)).toBeNull();
    expect(blockerOf('not a url', blocked)).toBeNull();
    expect(blockerOf('https://evil.example/', new Set())).toBeNull();
  });
});
